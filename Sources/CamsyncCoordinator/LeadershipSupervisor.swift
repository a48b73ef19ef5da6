import CamsyncEtcd
import CamsyncRuntime
import CamsyncWire
import Logging
import ZeroMQ
import CamsyncCoordinatorCore
import CamsyncEtcdModel

/// The etcd side of an HA coordinator (SPEC K6), as tasks beside the loop thread:
/// - candidacy: a lease kept alive, a campaign on the election key whose value is this
///   coordinator's address; a win is posted to the loop, and the leadership is given up (lease
///   revoked, a new candidacy begun) when the lease is lost or the loop steps down;
/// - the leader as etcd shows it (`observe`), for NOT_LEADER answers;
/// - the log as it grows (`watch`), which standbys apply through their engine.
/// Every decision stays in the core (`CoordinatorCore+Leadership.swift`); this only talks to etcd,
/// posts `LeadershipEvent`s, and gives a leadership up when the core resigns it.
struct LeadershipSupervisor: Sendable {
    let client: EtcdClient
    let log: EtcdCommandLog
    let settings: HighAvailabilitySettings
    let address: Camsync_V1_CoordinatorAddress
    let mailbox: HAMailbox
    let logger: Logger
    /// The lease of the candidacy under way (revoked by `resign()` at shutdown).
    let lease = Locked<EtcdLease?>(nil)

    /// Gives up the candidacy at once (graceful shutdown): the leader key goes, the next candidate
    /// leads without waiting for the TTL.
    func resign() async {
        guard let current = lease.withLock({ held in defer { held = nil }; return held }) else { return }
        try? await client.revoke(current)
    }

    /// Runs until cancelled.
    func run() async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await retrying("watch the log") { try await followLog() } }
            group.addTask { await retrying("observe the leader") { try await observeLeader() } }
            group.addTask { await retrying("candidacy") { try await candidacy() } }
            await group.waitForAll()
        }
    }

    /// Runs `body` again after each failure (with a short pause) until cancelled.
    private func retrying(_ what: String, _ body: () async throws -> Void) async {
        while !Task.isCancelled {
            do {
                try await body()
            } catch is CancellationError {
                return
            } catch LeadershipEnded.steppedDown {
                logger.info("etcd: leadership given up; campaigning again")
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

    /// One candidacy: lease, campaign, lead until the lease is lost or the core resigns; then the
    /// lease is revoked (the leader key goes with it) so that the next candidate can win.
    private func candidacy() async throws {
        let asked = Clock.monotonicMilliseconds()
        let lease = try await client.grantLease(ttlSeconds: settings.leaseSeconds)
        self.lease.withLock { $0 = lease }
        let client = self.client
        let current = self.lease
        // Whatever ends the candidacy (lost lease, resignation), the lease goes, and the leader key
        // with it: the next candidate need not wait for the TTL. Not cancelled with this task. At
        // shutdown `resign()` revokes it instead (once: it takes the lease from `current`).
        defer {
            if current.withLock({ held in defer { if held == lease { held = nil } }; return held == lease }) {
                Task { try? await client.revoke(lease) }
            }
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await keepAlive(lease, askedAt: asked) }
            group.addTask {
                let leadership = try await client.campaign(settings.election, lease: lease,
                                                           value: try address.serializedBytes())
                logger.info("won the election", metadata: ["term": "\(leadership.term)", "lease": "\(lease.hex)"])
                mailbox.post(.won(leadership))
                await mailbox.resignation(of: leadership)
                try Task.checkCancellation()
                throw LeadershipEnded.steppedDown
            }
            defer { group.cancelAll() }
            try await group.next()
        }
    }

    /// Keeps `lease` alive (`EtcdClient.keepAlive`) and tells the core until when it is known to live;
    /// posts `leaseLost` when etcd says it is gone or no renewal succeeded within the TTL.
    /// The lease lives at least TTL from when it was asked for (`askedAt`, monotonic ms).
    private func keepAlive(_ lease: EtcdLease, askedAt: Int64) async throws {
        mailbox.post(.leaseRenewed(lease: lease.id, validUntil: askedAt + lease.ttlSeconds * 1000))
        do {
            try await client.keepAlive(lease) { knownToLive in
                let (seconds, attoseconds) = knownToLive.components
                mailbox.post(.leaseRenewed(lease: lease.id, validUntil: Clock.monotonicMilliseconds() + seconds * 1000
                                                                         + attoseconds / 1_000_000_000_000_000))
            }
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            mailbox.post(.leaseLost("\(error)"))
            throw error
        }
    }

    /// The leader as etcd shows it. When that is this candidacy's own key, it is a win, whether or
    /// not the Campaign call has returned yet: a Campaign call whose stream stalled must not leave
    /// a leader key that nobody acts for (what `camsync sim` found in its model; the core ignores
    /// the second report of one win).
    private func observeLeader() async throws {
        try await client.observe(settings.election) { leader in
            var address = try Camsync_V1_CoordinatorAddress(serializedBytes: leader.value)
            address.term = UInt64(leader.term)
            mailbox.post(.leaderObserved(address, lease: leader.lease))
            if lease.withLock({ $0?.id }) == leader.lease {
                mailbox.post(.won(EtcdLeadership(election: settings.election, key: leader.key, term: leader.term,
                                                 lease: leader.lease)))
            }
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

    enum LeadershipEnded: Error { case steppedDown }
}
