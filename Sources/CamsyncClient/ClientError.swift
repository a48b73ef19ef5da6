/// What a client of the cluster can run into, as sentences with the fix where there is one.
public enum ClientError: Error, Equatable, CustomStringConvertible {
    /// Nothing answered within the timeout.
    case unreachable(endpoint: String, hint: String, timeoutMilliseconds: Int)
    /// The peer answered with an error reply.
    case refused(code: String, message: String, rejection: String?, pipFailure: String?)
    /// The peer answered with something that is not the expected reply.
    case unexpectedReply(String)
    case transport(String)

    public var description: String {
        switch self {
        case .unreachable(let endpoint, let hint, let timeout):
            "no answer from \(endpoint) within \(timeout) ms: \(hint)"
        case .refused(let code, let message, let rejection, let pipFailure):
            "refused (\(code)\(rejection.map { ", \($0)" } ?? "")\(pipFailure.map { ", failedToStart: \($0)" } ?? "")): \(message)"
        case .unexpectedReply(let what): "unexpected reply: \(what)"
        case .transport(let what): "transport error: \(what)"
        }
    }
}
