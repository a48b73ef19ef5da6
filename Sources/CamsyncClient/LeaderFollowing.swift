public import CamsyncWire
public import ZeroMQ

/// How an admin client reaches the leader of an HA cluster (SPEC K6), in one place: ask the
/// coordinators in turn until one answers; a standby's NOT_LEADER that names the leader is
/// followed once. Nothing here guesses: the leader comes from the standby's answer.
public enum LeaderFollowing {
    /// Runs `request` on a client of the first of `endpoints` that answers (an endpoint that does
    /// not answer within its share of `timeoutMilliseconds`, or a standby that knows no leader,
    /// passes to the next). When the answer is
    /// NOT_LEADER naming a leader, runs `request` once more on a client of the leader, at the
    /// endpoint `reach` gives for it (default: the command endpoint the leader advertises; a lab
    /// maps the name to an endpoint reachable from here). One hop only: what the leader answers is
    /// the result, a second NOT_LEADER included.
    ///
    /// `request` gets the client and the milliseconds it may wait. It must be safe to send twice:
    /// a standby applies nothing, so a command refused with NOT_LEADER + leader was not applied;
    /// pass the same request id to both sends anyway (K5).
    public static func run<T>(
        context: ZMQContext, endpoints: [String], sender: String = Envelope.adminSender, curve: ClientCurve?,
        timeoutMilliseconds: Int = 5_000,
        reach: (Camsync_V1_CoordinatorAddress) -> String = { $0.commandEndpoint },
        _ request: (CoordinatorClient, Int) throws -> T
    ) throws -> T {
        precondition(!endpoints.isEmpty, "no coordinator endpoint")
        let share = endpoints.count == 1 ? timeoutMilliseconds : max(1_000, timeoutMilliseconds / endpoints.count)
        func attempt(_ endpoint: String) throws -> T {
            let client = try CoordinatorClient(context: context, endpoint: endpoint, sender: sender, curve: curve)
            defer { client.close() }
            return try request(client, share)
        }
        var lastError: (any Error)?
        for endpoint in endpoints {
            do {
                return try attempt(endpoint)
            } catch ClientError.refused(let refusal) where refusal.code == .notLeader && refusal.leader != nil {
                let leader = reach(refusal.leader!)
                guard !leader.isEmpty, leader != endpoint else { throw ClientError.refused(refusal) }
                return try attempt(leader)
            } catch let error as ClientError where error.isUnreachable || error.refusal?.code == .notLeader {
                // No answer, or a standby that knows no leader (yet): the next coordinator may lead.
                lastError = error
            }
        }
        throw lastError!
    }
}

extension ClientError {
    var isUnreachable: Bool {
        if case .unreachable = self { true } else { false }
    }
}
