import CamsyncEtcd
import CamsyncRuntime
import CamsyncWire
import Logging
import ZeroMQ
import CamsyncCoordinatorCore
import CamsyncEtcdModel

/// The etcd side of an HA coordinator (SPEC K6), as tasks beside the loop thread: it carries out
/// the effects of the `Candidacy` (the decisions, written once for this world and the simulator's)
/// against etcd, and feeds it etcd's answers; it posts to the loop what the candidacy tells the
/// core. Beside it, the leader as etcd shows it (`observe`), and the log as it grows (`watch`),
/// which standbys apply through their engine.
struct LeadershipSupervisor: Sendable {
    let client: EtcdClient
    let log: EtcdCommandLog
    let settings: HighAvailabilitySettings
    let address: Camsync_V1_CoordinatorAddress
    let mailbox: HAMailbox
    let logger: Logger
    /// The candidacy's state, stepped by one answer at a time.
    private let candidacy: Locked<Candidacy>

    init(client: EtcdClient, log: EtcdCommandLog, settings: HighAvailabilitySettings,
         address: Camsync_V1_CoordinatorAddress, mailbox: HAMailbox, logger: Logger) {
        self.client = client
        self.log = log
        self.settings = settings
        self.address = address
        self.mailbox = mailbox
        self.logger = logger
        candidacy = Locked(Candidacy(ttlMilliseconds: settings.leaseSeconds * 1000))
    }

    /// Gives up the candidacy at once (graceful shutdown): the leader key goes, the next candidate
    /// leads without waiting for the TTL.
    func resign() async {
        for case .revoke(let lease) in candidacy.withLock({ $0.shutDown() }) {
            try? await client.revoke(EtcdLease(id: lease, ttlSeconds: 0))
        }
    }

    /// What steps the candidacy hand to `run`'s task group to carry out.
    private typealias Feed = AsyncStream<[Candidacy.Effect]>.Continuation

    /// Runs until cancelled.
    func run() async {
        let (effects, feed) = AsyncStream.makeStream(of: [Candidacy.Effect].self)
        await withDiscardingTaskGroup { group in
            group.addTask { await retrying("watch the log") { try await followLog() } }
            group.addTask { await retrying("observe the leader") { try await observeLeader(feed) } }
            feed.yield(candidacy.withLock { $0.begin() })
            for await batch in effects {
                for effect in batch { carryOut(effect, feed: feed, in: &group) }
            }
            group.cancelAll()
        }
    }

    /// Steps the candidacy with an answer; what it returns goes to `run` to be carried out.
    private func step(_ feed: Feed, _ answer: (inout Candidacy) -> [Candidacy.Effect]) {
        feed.yield(candidacy.withLock(answer))
    }

    /// An effect, as a child task of `group` when it calls etcd: its answer steps the candidacy again.
    private func carryOut(_ effect: Candidacy.Effect, feed: Feed, in group: inout DiscardingTaskGroup) {
        switch effect {
        case .post(let news):
            mailbox.post(news)
        case .grant(let number):
            group.addTask {
                let asked = Clock.monotonicMilliseconds()
                do {
                    let lease = try await client.grantLease(ttlSeconds: settings.leaseSeconds)
                    step(feed) { $0.granted(candidacy: number, lease: lease.id, ttlMilliseconds: lease.ttlSeconds * 1000, askedAt: asked) }
                } catch {
                    failed(.grant, number, error, feed)
                }
            }
        case .campaign(let number, let lease):
            group.addTask {
                do {
                    let leadership = try await client.campaign(settings.election, lease: EtcdLease(id: lease, ttlSeconds: 0),
                                                               value: try address.serializedBytes())
                    logger.info("won the election", metadata: ["term": "\(leadership.term)", "lease": "\(leadership.lease)"])
                    step(feed) { $0.won(candidacy: number, leadership) }
                    await mailbox.resignation(of: leadership)
                    if Task.isCancelled { return }
                    logger.info("etcd: leadership given up", metadata: ["term": "\(leadership.term)"])
                    step(feed) { $0.resigned(leadership) }
                } catch {
                    failed(.campaign, number, error, feed)
                }
            }
        case .renew(let number, let lease, let after, let attempt):
            group.addTask {
                guard (try? await Task.sleep(for: .milliseconds(after))) != nil else { return }
                let sent = Clock.monotonicMilliseconds()
                do {
                    try await client.renew(EtcdLease(id: lease, ttlSeconds: 0), attemptTimeout: .milliseconds(attempt))
                    step(feed) { $0.renewed(candidacy: number, lease: lease, sentAt: sent) }
                } catch let error as EtcdError where error.code == .leaseExpired {
                    logger.warning("etcd: the candidacy's lease is gone", metadata: ["error": "\(error)"])
                    step(feed) { $0.leaseGone(candidacy: number, lease: lease) }
                } catch {
                    failed(.renewal, number, error, feed)
                }
            }
        case .revoke(let lease):
            group.addTask { try? await client.revoke(EtcdLease(id: lease, ttlSeconds: 0)) }
        case .retry(let number, let after):
            group.addTask {
                guard (try? await Task.sleep(for: .milliseconds(after))) != nil else { return }
                logger.info("etcd: campaigning again")
                step(feed) { $0.retry(candidacy: number) }
            }
        }
    }

    /// A call of candidacy `number` failed: the candidacy decides (nothing, when the task was cancelled).
    private func failed(_ call: Candidacy.Call, _ number: Int, _ error: any Error, _ feed: Feed) {
        if Task.isCancelled || error is CancellationError { return }
        logger.warning("etcd: \(call) failed", metadata: ["error": "\(error)"])
        let trouble = (error as? EtcdError).flatMap { etcd in
            etcd.code == .noQuorum ? "etcd has no quorum" : etcd.code == .unavailable ? "etcd cannot be reached" : nil
        }
        step(feed) { $0.failed(call, candidacy: number, reason: "\(error)", trouble: trouble, now: Clock.monotonicMilliseconds()) }
    }

    /// Runs `body` again after each failure (with a short pause) until cancelled.
    private func retrying(_ what: String, _ body: () async throws -> Void) async {
        while !Task.isCancelled {
            do {
                try await body()
            } catch is CancellationError {
                return
            } catch {
                if Task.isCancelled { return }
                logger.warning("etcd: \(what) failed; retrying", metadata: ["error": "\(error)"])
                if let etcd = error as? EtcdError, etcd.code == .noQuorum || etcd.code == .unavailable {
                    mailbox.post(.storeTrouble(etcd.code == .noQuorum ? "etcd has no quorum" : "etcd cannot be reached"))
                }
            }
            try? await Task.sleep(for: .milliseconds(200))
        }
    }

    /// The leader as etcd shows it. When that is this candidacy's own key, it is a win, whether or
    /// not the Campaign call has returned yet: a Campaign call whose stream stalled must not leave
    /// a leader key that nobody acts for (what `camsync sim` found in its model; the core ignores
    /// the second report of one win).
    private func observeLeader(_ feed: Feed) async throws {
        try await client.observe(settings.election) { leader in
            var address = try Camsync_V1_CoordinatorAddress(serializedBytes: leader.value)
            address.term = UInt64(leader.term)
            let leadership = EtcdLeadership(election: settings.election, key: leader.key, term: leader.term, lease: leader.lease)
            step(feed) { $0.observed(address, leadership) }
            return true
        }
    }

    /// Every turn put under the log prefix from now on, while the core does not lead. The loop
    /// applies what continues its sequence and rebuilds from etcd on a gap, so a turn a watch started
    /// again "from now" missed is made up at the next turn it delivers (and a win reads the log
    /// before leading). The watch ends at the first turn it delivers once the core leads (the core's
    /// own; `HAMailbox.coreLeads`) and starts again when the core stops leading, which is when it
    /// rebuilds from etcd anyway.
    private func followLog() async throws {
        while !Task.isCancelled {
            await mailbox.untilCoreFollows()
            if Task.isCancelled { return }
            try await client.watch(prefix: log.logPrefix, from: 0) { events in
                guard !mailbox.coreLeads else { return false }
                for event in events where event.kind == .put {
                    mailbox.post(.logTurn(try LoggedBatch.turn(event.keyValue.value)))
                }
                return true
            }
        }
    }
}
