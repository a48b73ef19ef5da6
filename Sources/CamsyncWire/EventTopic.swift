public import CamsyncPolicy

/// Topics: the first frame of every push on a node's command connection and of every message on the
/// event socket (docs/PROTOCOL.md "The feed", "Topics"). Each batch is pushed to every node of every
/// device group it touches (`EventBatch.groups`), on that node's feed topic, and published once on
/// `all` for the observers of everything; the coordinator's heartbeats are pushed to each node and
/// published once an interval, on `hb`. Under CURVE a node's key reads nothing on the event socket
/// (the coordinator's XPUB admits subscriptions per key); admins may read every topic.
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
