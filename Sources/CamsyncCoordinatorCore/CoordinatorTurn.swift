import CamsyncRuntime
/// One iteration of a coordinator's loop, written once for both worlds (`CoordinatorWorld`): the
/// phases in the order they run, and how each action of the core is carried out. `CoordinatorLoop`
/// runs the phases back to back after its poll; the simulator runs them one at a time, each at the
/// simulated instant the previous one's work ended, so that what arrives meanwhile waits for the
/// phase that takes it — as on a busy machine.
public enum CoordinatorPhase: Sendable, CaseIterable, CustomStringConvertible {
    /// etcd's news (HA): the leader it shows, a win, the lease, the watched log.
    case news
    /// The log's answers to the writes and reads in flight.
    case answers
    /// The frames waiting on the command socket, as many as the core takes in one turn.
    case frames
    /// Every pulse of the leader that has arrived, heard before `tick` judges the leader's silence:
    /// one that came while this iteration applied the log or took frames is not seen by the poll,
    /// and a suspicion judged without it deposes a healthy leader.
    case pulses
    /// Time: deadlines, liveness, heartbeats, the leader's pulse.
    case tick
    /// The turn's commit (whose answer releases its replies and publications).
    case endTurn

    /// The order of one iteration.
    public static let turn: [CoordinatorPhase] = [.news, .answers, .frames, .pulses, .tick, .endTurn]

    public var description: String {
        switch self {
        case .news: "news"
        case .answers: "answers"
        case .frames: "frames"
        case .pulses: "pulses"
        case .tick: "tick"
        case .endTurn: "end of turn"
        }
    }
}

/// What the world's poll saw at the start of an iteration.
public struct CoordinatorReadiness: Sendable {
    /// A pulse was waiting on the standby's subscription.
    public var pulse: Bool
    public init(pulse: Bool) { self.pulse = pulse }
}

extension CoordinatorCore {

    /// Runs one phase of the turn against `world`. Stops early when the world halts.
    public mutating func run(_ phase: CoordinatorPhase, in world: some CoordinatorWorld, polled: CoordinatorReadiness) throws {
        switch phase {
        case .news:
            for news in world.takeNews() {
                try carryOut(observe(news, at: world.now()), in: world)
                if world.isHalted { return }
            }
        case .answers:
            while let answer = world.nextAnswer() {
                try take(answer, in: world)
                if world.isHalted { return }
            }
        case .frames:
            let start = world.now().monotonicMilliseconds
            var received = 0
            while takesFrames {
                guard let frame = try world.nextFrame() else {
                    heardEverything(at: world.now())
                    break
                }
                received += 1
                let now = world.now()
                try carryOut(receive(frame, at: now), in: world)
                if world.isHalted { return }
                guard turnTakesMore(received: received, since: start, at: now.monotonicMilliseconds) else { break }
            }
        case .pulses:
            guard polled.pulse || settings.plantedBug != .pulseOnlyWhenPolled else { return }
            while let pulse = try world.nextPulse() {
                try carryOut(heardPulse(pulse, at: world.now()), in: world)
            }
        case .tick:
            try carryOut(tick(at: world.now()), in: world)
        case .endTurn:
            try carryOut(endTurn(at: world.now()), in: world)
        }
    }

    /// Hands the core one answer of the log, carries out what it answers, then lets the world know.
    public mutating func take(_ answer: StoreAnswer, in world: some CoordinatorWorld) throws {
        try carryOut(take(answer, at: world.now()), in: world)
        world.answerCarriedOut(answer)
    }

    /// Carries out `actions` in order; an answer the world gives at once goes back to the core.
    public mutating func carryOut(_ actions: [CoordinatorAction], in world: some CoordinatorWorld) throws {
        for action in actions {
            if world.isHalted { return }
            switch action {
            case .reply(let routingID, let envelope): world.send(envelope, to: routingID)
            case .answer(let routingID, let requestID, let shared): world.send(shared, answering: requestID, to: routingID)
            case .publish(let topic, let publication): world.publish(topic: topic, publication)
            case .push(let routingID, let topic, let publication): world.push(publication, topic: topic, to: routingID)
            case .commit(let commit):
                if let answer = world.commit(commit) { try take(answer, in: world) }
            case .serveReplay(let routingID, let requestID, let after, let limit):
                world.read(.replay(routingID: routingID, requestID: requestID, after: after, limit: limit))
            case .writeSnapshot(let snapshot, let keep, let leadership):
                world.write(snapshot, keepingCommands: keep, ifLeading: leadership)
            case .rebuildFromLog: world.read(.rebuild)
            case .readLog(let after): world.read(.log(after: after))
            case .resign(let leadership): world.resign(leadership)
            case .listen(let leader): world.listen(toLeader: leader)
            case .revokeLease(let lease): world.revoke(lease: lease)
            case .dropConnection(let connection): world.drop(connection)
            case .suspendKey(let key, let milliseconds): world.suspend(key: key, milliseconds: milliseconds)
            case .count(let metric): world.count(metric)
            case .log(let entry): world.log(entry)
            case .stop(let reason): try world.stop(reason)
            }
        }
    }
}
