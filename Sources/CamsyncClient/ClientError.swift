public import CamsyncPolicy
public import CamsyncWire

/// What a client of the cluster can run into, as sentences with the fix where there is one.
public enum ClientError: Error, Equatable, CustomStringConvertible {
    /// Nothing answered within the timeout.
    case unreachable(endpoint: String, hint: String, timeoutMilliseconds: Int)
    /// The peer answered with an error reply.
    case refused(Refusal)
    /// The peer answered with something that is not the expected reply.
    case unexpectedReply(String)
    case transport(String)
    /// With CURVE: no coordinator the client believes is at this endpoint (no key to connect with).
    case untrusted(endpoint: String)

    public var description: String {
        switch self {
        case .unreachable(let endpoint, let hint, let timeout):
            "no answer from \(endpoint) within \(timeout) ms: \(hint)"
        case .refused(let refusal): "\(refusal)"
        case .unexpectedReply(let what): "unexpected reply: \(what)"
        case .transport(let what): "transport error: \(what)"
        case .untrusted(let endpoint):
            "no trusted coordinator key for \(endpoint): it is not in the coordinator keys (coordinators.txt), or the key named for it is not trusted"
        }
    }

    /// The refusal, when this is one.
    public var refusal: Refusal? {
        if case .refused(let refusal) = self { refusal } else { nil }
    }
}

/// An error reply, typed: the wire's error code, its message, and the engine's `Rejection` (with the
/// PiP start failure reason) when the code is `ERROR_CODE_REJECTED`.
public struct Refusal: Error, Equatable, Sendable, CustomStringConvertible {
    public var code: Camsync_V1_ErrorCode
    public var message: String
    public var rejection: Rejection?
    /// With `ERROR_CODE_NOT_LEADER` from a standby (SPEC K6): the leader it knows of.
    public var leader: Camsync_V1_CoordinatorAddress?

    public init(code: Camsync_V1_ErrorCode, message: String, rejection: Rejection? = nil,
                leader: Camsync_V1_CoordinatorAddress? = nil) {
        self.code = code
        self.message = message
        self.rejection = rejection
        self.leader = leader
    }

    /// The refusal an error reply carries (a REJECTED reply whose rejection this client does not know
    /// keeps its code and message).
    public init(_ error: Camsync_V1_Error) {
        self.init(code: error.code, message: error.message, rejection: try? Rejection(wire: error),
                  leader: error.hasLeader ? error.leader : nil)
    }

    /// The names a refusal answers to (scenario files' `expect_refusal`): the error code's, the
    /// rejection code's and the PiP failure reason's.
    public var names: [String] {
        ["\(code)", rejection?.code.rawValue, rejection?.pipFailure?.rawValue].compactMap { $0 }
    }

    public var description: String {
        let reasons = [rejection?.code.rawValue, "\(code)", rejection?.pipFailure.map { "failedToStart: \($0.rawValue)" }]
        return "refused (\(reasons.compactMap { $0 }.joined(separator: ", "))): \(message)"
    }
}
