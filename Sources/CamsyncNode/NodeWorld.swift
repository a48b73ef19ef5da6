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
    /// Replaces the connection to the coordinator (and the subscription's, when `subscriber`): what
    /// was queued for the old one is dropped.
    func reconnect(commandEndpoint: String, serverKey: String?, subscriber: Bool) throws
    /// Answers a local control client (`camsync ctl`).
    func replyToControl(identity: [UInt8], _ envelope: Envelope)
    func appendHistory(_ entry: NodeHistoryEntry)
    func count(_ metric: NodeMetric)
    func log(_ level: Logger.Level, _ message: Logger.Message, _ metadata: Logger.Metadata)
    /// After every batch of actions: the subscription carries the topics the session follows.
    func follow(_ subscriptions: [String])
}

extension NodeWorld {
    /// A world without a logger (the simulator, a fleet shard) drops the session's log lines.
    public func log(_ level: Logger.Level, _ message: Logger.Message, _ metadata: Logger.Metadata) {}

    /// Carries out `actions` in order, then keeps the subscription what `subscriptions` says.
    public func carryOut(_ actions: [NodeAction], subscriptions: [String]) throws {
        defer { follow(subscriptions) }
        for action in actions {
            switch action {
            case .send(let envelope): send(envelope)
            case .reconnect(let endpoint, let serverKey, let subscriber):
                try reconnect(commandEndpoint: endpoint, serverKey: serverKey, subscriber: subscriber)
            case .replyToControl(let identity, let envelope): replyToControl(identity: identity, envelope)
            case .appendHistory(let entry): appendHistory(entry)
            case .count(let metric): count(metric)
            case .log(let level, let message, let metadata): log(level, message, metadata)
            }
        }
    }
}
