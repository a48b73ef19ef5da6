public import CamsyncPolicy

// MARK: - Snapshot (Clone pattern: state at a sequence)

extension Camsync_V1_Snapshot {
    /// The state after applying every command up to and including `sequence`.
    public init(sequence: UInt64, term: UInt64, state: ClusterState) {
        self.init()
        self.sequence = sequence
        self.term = term
        self.state = Camsync_V1_ClusterState(state)
    }

    /// The domain state; `state` must be present and valid (field paths start at `state`).
    public func domainState() throws(WireMappingError) -> ClusterState {
        guard hasState else { throw WireMappingError("state", .missing) }
        return try within("state") { () throws(WireMappingError) in try ClusterState(wire: state) }
    }
}

// MARK: - EventBatch (one accepted command = one sequence number)

extension Camsync_V1_EventBatch {
    /// One accepted command and the events the engine produced for it, in engine order.
    /// `originNode` is nil for coordinator-issued commands (liveness, PiP restore deadline).
    public init(sequence: UInt64, term: UInt64, time: Instant, originNode: NodeID?, originRequestID: UInt64,
                command: Command, events: [Event]) {
        self.init(sequence: sequence, term: term, time: time, originNode: originNode, originRequestID: originRequestID,
                  wireCommand: Camsync_V1_Command(command), events: events)
    }

    /// The same batch from a command already in wire form (the coordinator reuses the request's
    /// decoded message instead of mapping the command back).
    public init(sequence: UInt64, term: UInt64, time: Instant, originNode: NodeID?, originRequestID: UInt64,
                wireCommand: Camsync_V1_Command, events: [Event]) {
        self.init()
        self.sequence = sequence
        self.term = term
        timeMs = time.milliseconds
        self.originNode = originNode?.rawValue ?? ""
        self.originRequestID = originRequestID
        self.command = wireCommand
        self.events = events.map(Camsync_V1_Event.init)
    }

    /// The instant the engine applied the command at.
    public var time: Instant { Instant(milliseconds: timeMs) }

    /// The command to replay through the engine; must be present and valid.
    public func domainCommand() throws(WireMappingError) -> Command {
        guard hasCommand else { throw WireMappingError("command", .missing) }
        return try within("command") { () throws(WireMappingError) in try Command(wire: command) }
    }

    /// The events, in engine order; every one must be valid (paths like `events[3].pip_moved.frame`).
    public func domainEvents() throws(WireMappingError) -> [Event] {
        var result: [Event] = []
        result.reserveCapacity(events.count)
        for (index, event) in events.enumerated() {
            result.append(try within("events[\(index)]") { () throws(WireMappingError) in try Event(wire: event) })
        }
        return result
    }
}

// MARK: - Heartbeats (K1)

extension Camsync_V1_NodeHeartbeat {
    public init(time: Instant) {
        self.init()
        timeMs = time.milliseconds
    }
}

extension Camsync_V1_CoordinatorHeartbeat {
    public init(term: UInt64, lastSequence: UInt64, time: Instant) {
        self.init()
        self.term = term
        self.lastSequence = lastSequence
        timeMs = time.milliseconds
    }
}
