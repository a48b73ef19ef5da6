import GRPCCore
public import CamsyncEtcdModel

extension EtcdError {
    /// Maps what a call threw to an `EtcdError`; rethrows cancellation of the calling task as is.
    static func classify(_ error: any Error, member: EtcdEndpoint, what: String) throws -> EtcdError {
        if let etcd = error as? EtcdError { return etcd }
        if error is CancellationError || Task.isCancelled { throw CancellationError() }
        let at = member.description
        guard let rpc = error as? RPCError else {
            return EtcdError(.protocolViolation, "\(what): \(error)", member: at)
        }
        let text = rpc.message
        switch rpc.code {
        case .unavailable where text.contains("no leader"):
            return EtcdError(.noQuorum, "\(what): the member has no raft leader (quorum lost?)", member: at)
        case .unavailable where text.contains("timed out") || text.contains("leader changed"):
            return EtcdError(.timedOut, "\(what): \(text)", member: at)
        case .unavailable:
            return EtcdError(.unavailable, "\(what): member unreachable: \(text)", member: at)
        case .deadlineExceeded:
            return EtcdError(.timedOut, "\(what): no answer before the deadline", member: at)
        case .outOfRange where text.contains("compacted"):
            return EtcdError(.compacted, "\(what): \(text)", member: at)
        case .notFound where text.contains("lease not found"):
            return EtcdError(.leaseExpired, "\(what): \(text)", member: at)
        case .permissionDenied, .unauthenticated:
            return EtcdError(.denied, "\(what): \(text)", member: at)
        case _ where text.contains("etcdserver: permission denied"):
            // The election service passes the KV refusal on with code unknown.
            return EtcdError(.denied, "\(what): \(text)", member: at)
        case .failedPrecondition where text.contains("user name not found") || text.contains("role name not found"):
            return EtcdError(.denied, "\(what): \(text)", member: at)
        case .cancelled:
            return EtcdError(.unavailable, "\(what): stream cancelled by the member: \(text)", member: at)
        default:
            return EtcdError(.rejected, "\(what): \(rpc.code): \(text)", member: at)
        }
    }

    /// One error for a request every member failed: no quorum if any member said so, else a
    /// timeout if any timed out, else unreachable.
    static func summary(of failures: [EtcdError], what: String) -> EtcdError {
        let detail = failures.map { "\($0.member ?? "?"): \($0.code.rawValue)" }.joined(separator: ", ")
        for code in [Code.noQuorum, .timedOut] where failures.contains(where: { $0.code == code }) {
            let reason = code == .noQuorum ? "no member has a raft leader (quorum lost)" : "members timed out"
            return EtcdError(code, "\(what): \(reason) [\(detail)]")
        }
        // The first member's own words say why (refused, a TLS handshake failure, …).
        let why = failures.first.map { ": first: \($0.message)" } ?? ""
        return EtcdError(.unavailable, "\(what): no member reachable [\(detail)]\(why)")
    }
}
