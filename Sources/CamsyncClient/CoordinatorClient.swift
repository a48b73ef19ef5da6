public import CamsyncPolicy
public import CamsyncWire
public import ZeroMQ

/// Talks to the coordinator's ROUTER directly: snapshots, and commands as `sender`
/// (an admin for admin actions; in lab mode without keys, the sender name "admin").
public final class CoordinatorClient {
    public let sender: String
    private let requests: RequestSocket
    /// The endpoint this client talks to.
    public var endpoint: String { requests.endpoint }

    /// `routingID`: the DEALER's ZMQ_ROUTING_ID. A client with a node's CURVE key must set it to that
    /// node's id (docs/PROTOCOL.md "Routing id"); admin clients may leave it to libzmq.
    public init(context: ZMQContext, endpoint: String, sender: String = Envelope.adminSender, curve: ClientCurve? = nil,
                routingID: String? = nil) throws {
        self.sender = sender
        requests = try RequestSocket(context: context, endpoint: endpoint,
                                     hint: "is `camsync coordinator` running and listening on \(endpoint)?", curve: curve,
                                     routingID: routingID)
    }

    public struct Snapshot: Sendable {
        public var sequence: UInt64
        public var term: UInt64
        public var state: ClusterState
        public var settings: PolicySettings
        /// Milliseconds since the coordinator last heard from each node (K1).
        public var silence: [String: Int64] = [:]
        /// The coordinator's heartbeat interval and liveness count (K1).
        public var heartbeatIntervalMilliseconds: UInt32 = 0
        public var liveness: UInt32 = 0
        /// What the coordinator counted since it started: accepted/refused commands, bad frames by reason, …
        public var counters = Camsync_V1_CoordinatorCounters()
        /// The sequence of each device group's last batch.
        public var groupSequences = GroupSequences()
    }

    public func snapshot(timeoutMilliseconds: Int = 5_000) throws -> Snapshot {
        let reply = try requests.roundTrip(.snapshotRequest(sender: sender, requestID: requests.takeRequestID()),
                                           timeoutMilliseconds: timeoutMilliseconds)
        switch reply.body {
        case .snapshot(let snapshot)?:
            var result = Snapshot(sequence: snapshot.sequence, term: snapshot.term, state: try snapshot.domainState(),
                                  settings: try snapshot.domainSettings())
            for entry in snapshot.liveness { result.silence[entry.node] = entry.silentMs }
            result.heartbeatIntervalMilliseconds = snapshot.livenessSettings.heartbeatIntervalMs
            result.liveness = snapshot.livenessSettings.liveness
            result.counters = snapshot.counters
            result.groupSequences = try GroupSequences(wire: snapshot.state.groupSequences)
            return result
        case .error(let error)?: throw ClientError.refused(Refusal(error))
        default: throw ClientError.unexpectedReply("\(reply.body.map { "\($0)" } ?? "no body") to a snapshot request")
        }
    }

    /// The published batches after `sequence`, oldest first (at most `maxBatches` per reply, 0 = the
    /// coordinator's limit). Throws `ClientError.refused` with `ERROR_CODE_COMPACTED` when the
    /// coordinator's journal no longer holds them.
    public func replay(after sequence: UInt64, maxBatches: UInt32 = 0, timeoutMilliseconds: Int = 5_000) throws -> Camsync_V1_Replay {
        var request = Camsync_V1_ReplayRequest()
        request.afterSequence = sequence
        request.maxBatches = maxBatches
        let envelope = Envelope(sender: sender, requestID: requests.takeRequestID(), body: .replayRequest(request))
        let reply = try requests.roundTrip(envelope, timeoutMilliseconds: timeoutMilliseconds)
        switch reply.body {
        case .replay(let replay)?: return replay
        case .error(let error)?: throw ClientError.refused(Refusal(error))
        default: throw ClientError.unexpectedReply("\(reply.body.map { "\($0)" } ?? "no body") to a replay request")
        }
    }

    /// The coordinator's own view of its HA state (SPEC K6): any coordinator answers, leading or not.
    public func coordinatorStatus(timeoutMilliseconds: Int = 2_000) throws -> Camsync_V1_CoordinatorStatus {
        let envelope = Envelope(sender: sender, requestID: requests.takeRequestID(),
                                body: .coordinatorStatusRequest(Camsync_V1_CoordinatorStatusRequest()))
        let reply = try requests.roundTrip(envelope, timeoutMilliseconds: timeoutMilliseconds)
        switch reply.body {
        case .coordinatorStatus(let status)?: return status
        case .error(let error)?: throw ClientError.refused(Refusal(error))
        default: throw ClientError.unexpectedReply("\(reply.body.map { "\($0)" } ?? "no body") to a coordinator status request")
        }
    }

    /// Sends a command; a given `requestID` makes it a retry of an earlier send (K5).
    @discardableResult
    public func send(_ command: Command, requestID: UInt64? = nil, timeoutMilliseconds: Int = 5_000) throws -> UInt64 {
        let id = requestID ?? requests.takeRequestID()
        let reply = try requests.roundTrip(.request(command, sender: sender, requestID: id),
                                           timeoutMilliseconds: timeoutMilliseconds)
        switch reply.body {
        case .ack(let ack)?: return ack.sequence
        case .error(let error)?: throw ClientError.refused(Refusal(error))
        default: throw ClientError.unexpectedReply("\(reply.body.map { "\($0)" } ?? "no body") to a command")
        }
    }

    /// Sends raw bytes as one frame and returns the reply (bad-input tests, fuzzing).
    public func sendRaw(_ bytes: [UInt8], timeoutMilliseconds: Int = 5_000) throws -> Envelope {
        try requests.roundTrip(rawBytes: bytes, timeoutMilliseconds: timeoutMilliseconds)
    }

    public func close() { requests.close() }
}

extension Camsync_V1_NodeStatus {
    /// Whether this node has applied everything the coordinator's `snapshot` (its whole state) holds
    /// for it: the snapshot's sequence for a full replica; for a replica of one device group, the
    /// group's last batch.
    public func caughtUp(with snapshot: CoordinatorClient.Snapshot) -> Bool {
        guard synced else { return false }
        guard !group.isEmpty else { return sequence == snapshot.sequence }
        return groupSequence == snapshot.groupSequences[NodeID(group)]
    }
}
