import CamsyncCoordinator
import CamsyncPolicy
import CamsyncRuntime
import CamsyncWire
import CamsyncCoordinatorCore

/// `micro`'s core row: the coordinator's protocol logic without sockets or a disk, as the loop's
/// thread runs it under load. 64 nodes' start/stop_session frames (encoded beforehand, as a client
/// would) are decided in turns of 64, each turn committed at once and released; the replies and
/// publications are encoded as the shell sends them. The batches' encoding, which the journal's
/// writer thread does, is left out of the time (and reported beside it). On one thread, with nothing
/// else to wait for, this is the figure the throughput benchmark's "busiest thread" CPU per command
/// approaches, without that benchmark's noise. The same batches as the log keeps them (their first
/// `followed`) are then followed by a standby: each decoded from its published bytes and applied
/// (`CoordinatorRecovery.rebuild`, which follows batch after batch as a standby does its watch).
enum CoreMicroBenchmark {
    struct Result {
        var loopCommandsPerSecond: Double
        var encodingCommandsPerSecond: Double
        var followedCommandsPerSecond: Double
    }

    static func run(commands count: Int, nodes: Int = 64, followed: Int = 100_000) throws -> Result {
        var core = CoordinatorCore(settings: CoordinatorSettings(dataDirectory: "", durability: .off), term: 1)
        var monotonic: Int64 = 0
        func now() -> CoordinatorTime {
            monotonic += 1
            return CoordinatorTime(monotonicMilliseconds: monotonic, wallMilliseconds: 1_700_000_000_000 + monotonic)
        }
        _ = core.beginServing(at: now())
        let ids = (0..<nodes).map(SimulatedNode.id)
        var requestID: UInt64 = 0
        func frame(_ command: Command, as node: String) -> InboundFrame {
            requestID += 1
            return InboundFrame(frames: [Array(node.utf8), Envelope.request(command, sender: node, requestID: requestID).serializedBytes()],
                                userID: nil, connection: nil)
        }
        var encodingNanoseconds: UInt64 = 0
        var sink = 0
        var logged: [[UInt8]] = []   // the batches as published, for the standby's part
        /// One turn: the frames decided, committed at once, released and sent (as bytes).
        func turn(_ frames: [InboundFrame]) throws {
            var actions: [CoordinatorAction] = []
            for frame in frames { actions += core.receive(frame, at: now()) }
            actions += core.endTurn(at: now())
            for case .commit(let commit) in actions {
                let t = Clock.monotonicNanoseconds()
                sink &+= commit.entries.count   // the writer thread's part: encoding the batches
                encodingNanoseconds += Clock.monotonicNanoseconds() - t
                for entry in commit.entries where logged.count < followed { logged.append(entry.batch) }
                actions += core.turnCommitted(commit.id, at: now())
            }
            for action in actions {
                switch action {
                case .reply(_, let envelope): sink &+= envelope.serializedBytes().count
                case .answer(_, let requestID, let shared): sink &+= shared.bytes(answering: requestID).count
                case .publish(_, let publication), .push(_, _, let publication): sink &+= publication.bytes.count
                default: break
                }
            }
        }
        try turn(ids.map { frame(.registerNode(SimulatedNode.registration($0, apps: 3)), as: $0) })
        for node in ids { try turn(SimulatedNode.claim(node).map { frame($0, as: node) }) }
        let rounds = max(1, count / nodes)
        var frames: [[InboundFrame]] = []
        for round in 0..<rounds {
            // App 0 of every node holds its camera after the claim: stop first, then start.
            frames.append(ids.map { frame(round % 2 == 0 ? SimulatedNode.stop($0) : SimulatedNode.start($0), as: $0) })
        }
        let accepted = core.counters.commandsAccepted
        encodingNanoseconds = 0
        let start = Clock.monotonicNanoseconds()
        for batch in frames { try turn(batch) }
        let elapsed = Clock.monotonicNanoseconds() - start
        let commands = rounds * nodes
        guard core.counters.commandsAccepted - accepted == commands else {
            throw BenchError("core micro: \(core.counters.commandsAccepted - accepted) of \(commands) commands accepted")
        }
        if sink == 42 { print("") }

        let followStart = Clock.monotonicNanoseconds()
        let batches = try logged.map(LoggedBatch.init(encoded:))
        let standby = try CoordinatorRecovery.rebuild(settings: core.settings, term: 1, snapshot: nil, batches: batches)
        let followElapsed = Clock.monotonicNanoseconds() - followStart
        // Every batch followed, and when that was the whole log, the same state as the leader's.
        guard standby.replayed == logged.count, logged.count < Int(core.sequence) || standby.core.state == core.state else {
            throw BenchError("core micro: the standby followed \(standby.replayed) of \(logged.count) batches to another state")
        }
        return Result(loopCommandsPerSecond: Double(commands) / (Double(elapsed - encodingNanoseconds) / 1e9),
                      encodingCommandsPerSecond: Double(commands) / (Double(encodingNanoseconds) / 1e9),
                      followedCommandsPerSecond: Double(logged.count) / (Double(followElapsed) / 1e9))
    }
}
