import CamsyncEtcd
import CamsyncRuntime
import CamsyncWire
import Logging

/// What an HA coordinator's loop is given (SPEC K6): the command log on etcd, and the mailbox the
/// `LeadershipSupervisor` posts etcd's news to.
public struct HALink: Sendable {
    let log: EtcdCommandLog
    let mailbox: HAMailbox
}

/// The HA loop's own state, on the loop thread.
final class HALoopState {
    let log: EtcdLogExecutor
    let mailbox: HAMailbox
    /// The engine may be ahead of the log (a turn that did not commit) or behind it (a gap in the
    /// watch): rebuild from etcd before following or leading again.
    var needsRebuild = true
    /// A win not acted on yet (the core must first hold the whole log).
    var pendingWin: EtcdLeadership?
    var lastAttempt: Int64 = 0
    /// Pause before the next rebuild or promotion attempt: 100 ms, doubling after each failure up
    /// to 2 s, so that a coordinator cut off from etcd still answers (NOT_LEADER, saying why) between
    /// attempts that each block the loop for up to the request deadline.
    var retryDelay: Int64 = 100
    /// Why etcd could not be used lately (said in NOT_LEADER errors).
    var trouble: String?

    init(log: EtcdLogExecutor, mailbox: HAMailbox) {
        self.log = log
        self.mailbox = mailbox
    }

    /// When the loop must wake to retry a rebuild or a promotion (monotonic ms), if it must.
    var nextAttempt: Int64? { needsRebuild || pendingWin != nil ? lastAttempt + retryDelay : nil }
}

extension CoordinatorLoop {

    /// Takes etcd's news: the leader's name, turns of the log (applied by a standby), a win (lead
    /// once the log is applied), a lost lease (stop at once). Also stops leading when the lease is
    /// not known to live any more, which covers a leader that was paused (SIGSTOP, a long GC-like
    /// stall): it cannot have acknowledged anything since, and must not publish.
    func followEtcd(_ ha: HALoopState) throws {
        for news in ha.mailbox.take() {
            switch news {
            case .won(let leadership):
                ha.pendingWin = leadership
            case .leader(let leader):
                // etcd answered: whatever trouble there was is over.
                ha.trouble = nil
                if case .standby = core.role {
                    core.becomeStandby(reason: "a standby", leader: leader?.name == settings.highAvailability?.name ? nil : leader)
                }
            case .logTurn(let turn):
                guard core.role != .leader, !ha.needsRebuild else { continue }
                for batch in turn.batches {
                    let outcome = core.follow(batch)
                    if outcome == .gap || outcome == .diverged {
                        logger.info("following the log: \(outcome); rebuilding from etcd",
                                    metadata: ["sequence": "\(core.sequence)", "batch": "\(batch.sequence)"])
                        ha.needsRebuild = true
                        break
                    }
                }
            case .leaseLost(let reason):
                ha.pendingWin = nil
                if core.role == .leader { stepDown(ha, reason: "lease lost: \(reason)", tellSupervisor: false) }
            case .trouble(let reason):
                ha.trouble = reason
                if core.role != .leader { core.becomeStandby(reason: reason, leader: core.role.knownLeader) }
            }
        }
        let now = Clock.monotonicMilliseconds()
        if core.role == .leader, now >= ha.mailbox.leaseValidUntil {
            stepDown(ha, reason: "the etcd lease was not renewed within its TTL", tellSupervisor: true)
        }
        guard ha.needsRebuild || ha.pendingWin != nil, now >= ha.lastAttempt + ha.retryDelay else { return }
        ha.lastAttempt = now
        do {
            if ha.needsRebuild { try rebuild(ha) }
            if let win = ha.pendingWin { try promote(ha, win) }
            ha.retryDelay = 100
        } catch {
            logger.warning("etcd: could not read the log", metadata: ["error": "\(error)"])
            ha.trouble = Self.describe(error)
            if core.role != .leader { core.becomeStandby(reason: Self.describe(error), leader: core.role.knownLeader) }
            ha.retryDelay = min(ha.retryDelay * 2, 2_000)
            ha.lastAttempt = Clock.monotonicMilliseconds()
        }
    }

    /// The core from etcd's newest snapshot and the log after it (as a standby).
    private func rebuild(_ ha: HALoopState) throws {
        let (snapshot, entries) = try ha.log.recover()
        var (rebuilt, replayed) = try CoordinatorRecovery.rebuild(settings: settings, term: max(core.term, snapshot?.term ?? 0),
                                                                  snapshot: snapshot, entries: entries)
        rebuilt.counters = core.counters
        rebuilt.becomeStandby(reason: ha.trouble ?? "a standby", leader: core.role.knownLeader, address: core.address)
        core = rebuilt
        ha.needsRebuild = false
        logger.info("state rebuilt from etcd", metadata: [
            "snapshot": "\(snapshot?.sequence ?? 0)", "replayed": "\(replayed)", "sequence": "\(core.sequence)"])
    }

    /// Catches up with everything the log holds (the previous leader's last turns may not have
    /// reached the watch yet), then leads. The previous leader cannot write any more: its key is
    /// gone, and its writes were conditional on it.
    private func promote(_ ha: HALoopState, _ win: EtcdLeadership) throws {
        for entry in try ha.log.entries(after: core.sequence) {
            guard let bytes = entry.batch, let batch = try? Camsync_V1_EventBatch(serializedBytes: bytes),
                  core.follow(batch) == .applied else {
                ha.needsRebuild = true
                return
            }
        }
        ha.pendingWin = nil
        ha.trouble = nil
        ha.log.leadership = win
        try execute(core.becomeLeader(term: UInt64(win.term), at: Self.now()))
    }

    /// Stops acknowledging and publishing at once. The supervisor gives up the leadership (unless it
    /// told us the lease is gone), and the state is rebuilt from etcd before anything else.
    func stepDown(_ ha: HALoopState, reason: String, tellSupervisor: Bool) {
        logger.warning("stepping down", metadata: ["term": "\(core.term)", "sequence": "\(core.sequence)", "why": "\(reason)"])
        core.becomeStandby(reason: reason)
        metrics.record(.role(leading: false, term: core.term))
        ha.log.leadership = nil
        ha.needsRebuild = true
        ha.pendingWin = nil
        if tellSupervisor { ha.mailbox.stepDown() }
    }

    /// A turn whose appends etcd did not take: nothing of it is acknowledged or published. Every
    /// request of the turn gets NOT_LEADER saying why (the client retries with the same id, K5;
    /// if the write did land after all, the next leader's retry window answers with the ack).
    func abandonTurn(reason: String) {
        guard let ha else { return }
        let why = "the command log on etcd did not take this turn (\(reason)): not acknowledged"
        for (identity, envelope) in pendingReplies {
            let error = Camsync_V1_Error(code: .notLeader, message: why)
            _ = try? router.send([identity, Envelope.error(error, requestID: envelope.requestID, term: core.term).serializedBytes()],
                                 dontWait: true)
        }
        metrics.record(.refused(.notLeader))
        pendingReplies.removeAll()
        pendingPublications.removeAll()
        pendingEntries.removeAll()
        stepDown(ha, reason: why, tellSupervisor: true)
    }

    static func describe(_ error: any Error) -> String {
        guard let etcd = error as? EtcdError else { return "\(error)" }
        switch etcd.code {
        case .noQuorum: return "etcd has no quorum"
        case .unavailable: return "etcd cannot be reached"
        case .notLeader: return "this coordinator lost its leadership on etcd"
        case .timedOut: return "etcd did not answer in time"
        default: return etcd.description
        }
    }
}
