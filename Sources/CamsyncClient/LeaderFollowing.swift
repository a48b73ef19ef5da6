public import CamsyncWire
public import ZeroMQ

/// How an admin client reaches the leader of an HA cluster (SPEC K6, K7), in one place: ask the
/// coordinators in turn until one answers; a standby's NOT_LEADER that names a leader is followed
/// when K7 allows it (`FollowedLeader`, the rule the node follows too). Nothing here guesses: the
/// leader comes from a standby's answer.
public enum LeaderFollowing {
    /// Runs `request` on a client of the coordinator that answers as the leader. It starts with the
    /// first of `endpoints`; an endpoint that does not answer within its share of
    /// `timeoutMilliseconds` fell silent (the next one is asked, and the one left is not followed
    /// back in the same term on a standby's word); a NOT_LEADER that names a leader K7 lets it follow
    /// sends the request there, at the endpoint `reach` gives for it (default: the command endpoint
    /// the leader advertises; a lab maps the name to an endpoint reachable from here); one that names
    /// none, or one not to follow, passes to the next endpoint. At most two attempts per endpoint, and
    /// never past `timeoutMilliseconds`: then the last error is thrown.
    ///
    /// `request` gets the client and the milliseconds it may wait. It must be safe to send twice:
    /// a standby applies nothing, so a command refused with NOT_LEADER was not applied; pass the same
    /// request id to every send anyway (K5).
    public static func run<T>(
        context: ZMQContext, endpoints: [String], sender: String = Envelope.adminSender, curve: ClientCurve?,
        timeoutMilliseconds: Int = 5_000,
        reach: (Camsync_V1_CoordinatorAddress) -> String = { $0.commandEndpoint },
        _ request: (CoordinatorClient, Int) throws -> T
    ) throws -> T {
        var leader = FollowedLeader(endpoints: endpoints)
        var curve = curve
        let share = endpoints.count == 1 ? timeoutMilliseconds : max(1_000, timeoutMilliseconds / endpoints.count)
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: .milliseconds(timeoutMilliseconds))
        var lastError: (any Error)?
        for _ in 0..<max(2, 2 * endpoints.count) {
            let remaining = clock.now.duration(to: deadline).components
            let left = Int(remaining.seconds * 1_000 + remaining.attoseconds / 1_000_000_000_000_000)
            guard left > 0 else { break }
            let client = try CoordinatorClient(context: context, endpoint: leader.followed.commandEndpoint, sender: sender, curve: curve)
            defer { client.close() }
            do {
                return try request(client, min(share, left))
            } catch ClientError.refused(let refusal) where refusal.code == .notLeader {
                // A standby (or a leader that lost etcd): nothing was applied.
                lastError = ClientError.refused(refusal)
                // A leader whose key is not trusted is not believed (a CURVE key pair per coordinator): ask the next one instead.
                if let named = refusal.leader, curve?.believes(named, reachedAt: reach(named)) ?? true,
                   leader.named(commandEndpoint: reach(named), term: named.term, by: .another) == .follow { continue }
                guard leader.tryNext() else { throw ClientError.refused(refusal) }
            } catch let error as ClientError where error.isUnreachable || error.isUntrusted {
                lastError = error
                guard leader.fellSilent() else { throw error }
            }
        }
        throw lastError ?? ClientError.unreachable(endpoint: leader.followed.commandEndpoint, hint: "is a coordinator running there?",
                                                  timeoutMilliseconds: timeoutMilliseconds)
    }
}

extension ClientError {
    var isUnreachable: Bool {
        if case .unreachable = self { true } else { false }
    }

    var isUntrusted: Bool {
        if case .untrusted = self { true } else { false }
    }
}
