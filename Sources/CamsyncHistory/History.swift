public import CamsyncPolicy

// The recorded history of one soak run. Plain values: the soak driver records them (one JSON
// object per line if it likes), the checker only reads them. Times are wall-clock milliseconds
// from the one machine clock every process shares; sequences are the coordinator's. Fence
// decisions are CamsyncPolicy's `FenceRecord`, as the nodes' fences logged them; the JSON form of
// every policy value is its synthesized `Codable` one.

/// A node process ended (kill -9, crash, orderly stop): whatever it let capture ends here.
public struct NodeStopped: Sendable, Equatable, Hashable, Codable {
    public var node: NodeID
    public var at: Instant
    public init(node: NodeID, at: Instant) {
        self.node = node
        self.at = at
    }
}

/// A node hosting `system` let `app` capture under `token` from `start` to `end`
/// (`end == nil`: still capturing when the history ends). Half-open: [start, end).
public struct CaptureInterval: Sendable, Equatable, Hashable, Codable, CustomStringConvertible {
    public var node: NodeID
    public var system: CameraSystemID
    public var app: AppID
    public var token: GrantToken
    public var start: Instant
    public var end: Instant?

    public init(node: NodeID, system: CameraSystemID, app: AppID, token: GrantToken, start: Instant, end: Instant?) {
        self.node = node
        self.system = system
        self.app = app
        self.token = token
        self.start = start
        self.end = end
    }

    public var description: String {
        "\(system) \(app) token \(token) on \(node) [\(start.milliseconds), \(end.map { "\($0.milliseconds)" } ?? "…"))"
    }
}

/// Where a grant observation came from.
public enum GrantSource: String, Sendable, Equatable, Hashable, Codable {
    /// A `cameraGranted` event with the sequence that produced it: a new grant.
    case event
    /// A snapshot's `lastToken`/`holder` at the snapshot's sequence: not a new grant.
    case snapshot
}

/// A node saw a grant of `system` to `app` under `token` at coordinator sequence `sequence` (C8).
public struct GrantObservation: Sendable, Equatable, Hashable, Codable, CustomStringConvertible {
    public var node: NodeID
    public var system: CameraSystemID
    public var app: AppID
    public var token: GrantToken
    public var sequence: UInt64
    public var source: GrantSource

    public init(node: NodeID, system: CameraSystemID, app: AppID, token: GrantToken, sequence: UInt64,
                source: GrantSource = .event) {
        self.node = node
        self.system = system
        self.app = app
        self.token = token
        self.sequence = sequence
        self.source = source
    }

    public var description: String { "\(node) saw \(system) → \(app) token \(token) at seq \(sequence) (\(source.rawValue))" }
}

/// A client got an ack for `command`, sent by `node` with `requestID`, carrying `sequence`.
public struct AcknowledgedCommand: Sendable, Equatable, Hashable, Codable, CustomStringConvertible {
    public var node: NodeID
    public var requestID: UInt64
    public var sequence: UInt64
    public var command: Command
    public var ackedAt: Instant

    public init(node: NodeID, requestID: UInt64, sequence: UInt64, command: Command, ackedAt: Instant) {
        self.node = node
        self.requestID = requestID
        self.sequence = sequence
        self.command = command
        self.ackedAt = ackedAt
    }

    public var description: String { "ack \(node)#\(requestID) seq \(sequence) at \(ackedAt.milliseconds)ms" }
}

/// One row of the coordinator's journal: which (node, request) produced which sequence.
public struct JournalRow: Sendable, Equatable, Hashable, Codable, CustomStringConvertible {
    public var sequence: UInt64
    public var node: NodeID
    public var requestID: UInt64
    public init(sequence: UInt64, node: NodeID, requestID: UInt64) {
        self.sequence = sequence
        self.node = node
        self.requestID = requestID
    }
    public var description: String { "journal seq \(sequence) = \(node)#\(requestID)" }
}

/// A node's replica at the end of the run.
public struct ReplicaState: Sendable, Equatable, Hashable, Codable {
    public var node: NodeID
    public var state: ClusterState
    public var sequence: UInt64
    /// A replica of one device group: the group, and the sequence of its last batch applied.
    public var group: NodeID?
    public var groupSequence: UInt64
    public init(node: NodeID, state: ClusterState, sequence: UInt64, group: NodeID? = nil, groupSequence: UInt64 = 0) {
        self.node = node
        self.state = state
        self.sequence = sequence
        self.group = group
        self.groupSequence = groupSequence
    }
}

/// What is left at the end, after every restart.
public struct FinalState: Sendable, Equatable, Hashable, Codable {
    /// The coordinator's state and the last sequence it produced.
    public var coordinatorState: ClusterState
    public var coordinatorSequence: UInt64
    /// The journal's commands (sequence, node, request id) in sequence order.
    public var journal: [JournalRow]
    /// Commands up to this sequence were folded into a snapshot and pruned from the journal
    /// (0: nothing pruned). Acks at or below it are checked against the final sequence only.
    public var journalCompactedThrough: UInt64
    /// Every live node's replica.
    public var replicas: [ReplicaState]
    /// The sequence of each device group's last batch, as the coordinator names them.
    public var coordinatorGroupSequences: [NodeID: UInt64]

    public init(coordinatorState: ClusterState, coordinatorSequence: UInt64, journal: [JournalRow],
                journalCompactedThrough: UInt64 = 0, replicas: [ReplicaState],
                coordinatorGroupSequences: [NodeID: UInt64] = [:]) {
        self.coordinatorState = coordinatorState
        self.coordinatorSequence = coordinatorSequence
        self.journal = journal
        self.journalCompactedThrough = journalCompactedThrough
        self.replicas = replicas
        self.coordinatorGroupSequences = coordinatorGroupSequences
    }
}

/// A node saw `recordingQualityAlert(device)` at `sequence` (R1).
public struct AlertObservation: Sendable, Equatable, Hashable, Codable, CustomStringConvertible {
    public var node: NodeID
    public var device: NodeID
    public var app: AppID?
    public var sequence: UInt64
    public init(node: NodeID, device: NodeID, app: AppID? = nil, sequence: UInt64) {
        self.node = node
        self.device = device
        self.app = app
        self.sequence = sequence
    }
    public var description: String { "\(node) saw alert for \(device) at seq \(sequence)" }
}

/// A node's replica showed `app`'s session in `state` once it had applied `sequence` (C2, C7).
/// The state after the whole command, not an intermediate event of it.
public struct SessionObservation: Sendable, Equatable, Hashable, Codable, CustomStringConvertible {
    public var node: NodeID
    public var app: AppID
    public var state: SessionState
    public var sequence: UInt64
    public init(node: NodeID, app: AppID, state: SessionState, sequence: UInt64) {
        self.node = node
        self.app = app
        self.state = state
        self.sequence = sequence
    }
    public var description: String { "\(node) saw \(app) \(state) at seq \(sequence)" }
}

/// One accepted command as the journal holds it.
public struct ReplayCommand: Sendable, Equatable, Hashable, Codable, CustomStringConvertible {
    public var sequence: UInt64
    public var command: Command
    public var at: Instant
    public init(sequence: UInt64, command: Command, at: Instant) {
        self.sequence = sequence
        self.command = command
        self.at = at
    }
    public var description: String { "seq \(sequence) at \(at.milliseconds)ms: \(command)" }
}

/// The coordinator's accepted commands in order, optionally on top of a snapshot (the journal
/// keeps a snapshot plus the commands after it), for replay through `PolicyEngine`.
public struct ReplayInput: Sendable, Equatable, Hashable, Codable {
    /// The state the commands start from and its sequence; nil: the empty state at sequence 0.
    public var baseState: ClusterState?
    public var baseSequence: UInt64
    public var commands: [ReplayCommand]

    public init(baseState: ClusterState? = nil, baseSequence: UInt64 = 0, commands: [ReplayCommand]) {
        self.baseState = baseState
        self.baseSequence = baseSequence
        self.commands = commands
    }
}

/// Faults the driver injected, by kind ("kill9", "sigstop", "partition", "drop", "duplicate" …).
public struct FaultCount: Sendable, Equatable, Hashable, Codable {
    public var kind: String
    public var count: Int
    public init(kind: String, count: Int) {
        self.kind = kind
        self.count = count
    }
}

/// Everything a soak run recorded.
public struct History: Sendable, Equatable, Hashable, Codable {
    public var fence: [FenceRecord]
    public var nodeStops: [NodeStopped]
    /// Intervals the driver recorded directly (e.g. from a node's status), checked with the ones
    /// built from `fence`.
    public var captures: [CaptureInterval]
    public var grants: [GrantObservation]
    public var acks: [AcknowledgedCommand]
    public var alerts: [AlertObservation]
    public var sessions: [SessionObservation]
    /// AVAudioSession notifications the nodes gave their apps (A3–A6).
    public var audio: [AudioObservation]
    public var replay: ReplayInput
    public var final: FinalState
    /// Operations the driver attempted (acked or not) and faults it injected.
    public var operations: Int
    public var faults: [FaultCount]
    /// When the history ends: open capture intervals run until here (nil: the latest time seen).
    public var endedAt: Instant?
    /// The HA soak's cuts of links, each with what it saw of the leadership (none elsewhere).
    public var partitions: [PartitionObservation]

    public init(fence: [FenceRecord] = [], nodeStops: [NodeStopped] = [], captures: [CaptureInterval] = [],
                grants: [GrantObservation] = [], acks: [AcknowledgedCommand] = [], alerts: [AlertObservation] = [],
                sessions: [SessionObservation] = [], audio: [AudioObservation] = [], replay: ReplayInput = ReplayInput(commands: []),
                final: FinalState, operations: Int = 0, faults: [FaultCount] = [], endedAt: Instant? = nil,
                partitions: [PartitionObservation] = []) {
        self.partitions = partitions
        self.fence = fence
        self.nodeStops = nodeStops
        self.captures = captures
        self.grants = grants
        self.acks = acks
        self.alerts = alerts
        self.sessions = sessions
        self.audio = audio
        self.replay = replay
        self.final = final
        self.operations = operations
        self.faults = faults
        self.endedAt = endedAt
    }

    /// Intervals built from the fence log (per node and camera system, in time order): `allowed`
    /// opens; `released` of the same app, a later `allowed` of another app, or the node stopping
    /// closes. At equal times fence decisions come before a stop. `captures` are appended as given.
    public var captureIntervals: [CaptureInterval] {
        CaptureInterval.build(fence: fence, stops: nodeStops) + captures
    }
}

extension CaptureInterval {
    /// Builds intervals from fence decisions and node stops (see `History.captureIntervals`).
    public static func build(fence: [FenceRecord], stops: [NodeStopped]) -> [CaptureInterval] {
        enum Item { case fence(FenceRecord), stop(NodeStopped) }
        func key(_ item: Item) -> (Int64, Int) {
            switch item {
            case .fence(let f): (f.at.milliseconds, 0)
            case .stop(let s): (s.at.milliseconds, 1)
            }
        }
        var items: [(Item, Int)] = fence.enumerated().map { (.fence($0.element), $0.offset) }
        items += stops.enumerated().map { (.stop($0.element), fence.count + $0.offset) }
        items.sort { a, b in
            let ka = key(a.0), kb = key(b.0)
            return ka != kb ? ka < kb : a.1 < b.1
        }
        struct Slot: Hashable { var node: NodeID; var system: CameraSystemID }
        var open: [Slot: CaptureInterval] = [:]
        var closed: [CaptureInterval] = []
        for (item, _) in items {
            switch item {
            case .stop(let stop):
                for slot in open.keys.sorted(by: { $0.system < $1.system }) where slot.node == stop.node {
                    var interval = open.removeValue(forKey: slot)!
                    interval.end = stop.at
                    closed.append(interval)
                }
            case .fence(let f):
                let system = f.decision.system, app = f.decision.app, token = f.decision.token
                let slot = Slot(node: f.node, system: system)
                switch f.decision.kind {
                case .allowed:
                    if var current = open.removeValue(forKey: slot) {
                        if current.app == app && current.token == token {
                            open[slot] = current  // the same grant seen again (snapshot adoption)
                            continue
                        }
                        current.end = f.at
                        closed.append(current)
                    }
                    open[slot] = CaptureInterval(node: f.node, system: system, app: app, token: token, start: f.at, end: nil)
                case .released:
                    if var current = open[slot], current.app == app {
                        open[slot] = nil
                        current.end = f.at
                        closed.append(current)
                    }
                case .refusedStale:
                    break
                }
            }
        }
        let still = open.values.sorted { ($0.start, $0.system, $0.node) < ($1.start, $1.system, $1.node) }
        return (closed + still).sorted { ($0.start.milliseconds, $0.system.description) < ($1.start.milliseconds, $1.system.description) }
    }
}
