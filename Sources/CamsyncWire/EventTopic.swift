public import CamsyncPolicy

/// PUB topics (the first frame of every published message, docs/PROTOCOL.md "Topics"): each batch
/// goes out once on the topic of every device group it touches (`EventBatch.groups`); coordinator
/// heartbeats on `hb`. A full replica subscribes to `ev.` and `hb` and drops a batch whose sequence
/// it holds already (one that touches two groups arrives twice); a follower of one group subscribes
/// to that group's topic and `hb`.
public enum EventTopic {
    public static let heartbeat = "hb"
    /// The prefix of every group's topic: what a full replica subscribes to.
    public static let everyGroup = "ev."

    /// A device group's topic: `ev.`, the group's id, and a zero byte (node ids hold none), so that
    /// no group's topic is the prefix of another's (`ev.ipad-1` and `ev.ipad-10`).
    public static func group(_ group: NodeID) -> String { "ev.\(group.rawValue)\u{0}" }
}
