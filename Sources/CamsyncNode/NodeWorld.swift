public import CamsyncWire
public import Logging

/// The world a node's actions are carried out in: the seam between `NodeSession`, which decides, and
/// whoever owns the connections, the history file and the logger. Three worlds implement it: a node
/// process's ZeroMQ sockets (`NodeLoop`), one node of a fleet benchmark's shard process
/// (`NodeFleetShard`), and the simulated network (`SimNodeWorld`). `carryOut` is the one place a
/// `NodeAction` becomes I/O.
public protocol NodeWorld {
    /// Sends on the connection to the followed coordinator; a full or broken connection drops it
    /// (the session's retries and heartbeats cover a lost message).
    func send(_ envelope: Envelope)
    /// Follows the coordinator at `commandEndpoint`: later sends go on the connection to it (opened
    /// now if there is none; closed and opened afresh first when `reopen`, dropping what was queued).
    func follow(commandEndpoint: String, serverKey: String?, reopen: Bool) throws
    /// Answers a local control client (`camsync ctl`).
    func replyToControl(identity: [UInt8], _ envelope: Envelope)
    func appendHistory(_ entry: NodeHistoryEntry)
    func count(_ metric: NodeMetric)
    func log(_ level: Logger.Level, _ message: Logger.Message, _ metadata: Logger.Metadata)
}

extension NodeWorld {
    /// A world without a logger (the simulator, a fleet shard) drops the session's log lines.
    public func log(_ level: Logger.Level, _ message: Logger.Message, _ metadata: Logger.Metadata) {}

    /// Carries out `actions` in order.
    public func carryOut(_ actions: [NodeAction]) throws {
        for action in actions {
            switch action {
            case .send(let envelope): send(envelope)
            case .follow(let endpoint, let serverKey, let reopen):
                try follow(commandEndpoint: endpoint, serverKey: serverKey, reopen: reopen)
            case .replyToControl(let identity, let envelope): replyToControl(identity: identity, envelope)
            case .appendHistory(let entry): appendHistory(entry)
            case .count(let metric): count(metric)
            case .log(let level, let message, let metadata): log(level, message, metadata)
            }
        }
    }
}
