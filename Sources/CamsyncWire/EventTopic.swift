public import CamsyncPolicy

/// Event socket topics (the first frame of every published message, docs/PROTOCOL.md "Topics").
/// Each batch goes out once on the feed of every node of every device group it touches
/// (`EventBatch.groups`), and once on `all` for the watchers of everything; coordinator heartbeats
/// on `hb`. A node subscribes to its own feed and `hb`, and under CURVE its key may read nothing
/// else (the coordinator's XPUB admits subscriptions per key); admins may read every topic.
public enum EventTopic {
    public static let heartbeat = "hb"
    /// Every batch, once: what a full replica (an admin watcher, the web view) subscribes to.
    public static let everyBatch = "all"

    /// A node's feed: the batches of the device group it is in (whichever group that is: a display
    /// that moves to another device keeps its feed) and that group's bookmarks. `ev.`, the node's
    /// id, and a zero byte (node ids hold none), so that no node's feed is the prefix of another's
    /// (`ev.ipad-1` and `ev.ipad-10`).
    public static func node(_ node: NodeID) -> String { "ev.\(node.rawValue)\u{0}" }
}
