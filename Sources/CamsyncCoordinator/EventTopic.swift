import CamsyncPolicy

/// PUB topics (the first frame of every published message, docs/PROTOCOL.md):
/// `ev.<device>` for commands about one device group (a device and its attached displays),
/// `ev.cluster` for cluster-wide ones, `hb` for coordinator heartbeats. A full replica
/// subscribes to `ev.` and `hb`; a watcher of one device to `ev.<device>`, `ev.cluster` and `hb`.
enum EventTopic {
    static let heartbeat = "hb"
    static let cluster = "ev.cluster"

    static func topic(for command: Command, in state: ClusterState) -> String {
        switch command {
        case .registerNode, .unregisterNode, .declareNodeDead, .attachDisplay, .detachDisplay:
            return cluster
        default:
            guard let subject = command.subjectNode else { return cluster }
            if state.nodes[subject]?.kind == .display, let device = state.nodes[subject]?.attachedTo {
                return "ev.\(device)"
            }
            return "ev.\(subject)"
        }
    }
}
