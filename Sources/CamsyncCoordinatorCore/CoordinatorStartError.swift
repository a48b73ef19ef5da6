/// Why a coordinator cannot start, or cannot take the state its log holds.
public enum CoordinatorStartError: Error, CustomStringConvertible, Equatable {
    /// HA mode was asked for without etcd endpoints.
    case noEtcdEndpoints
    /// The log skips sequences: `expected` was next, `found` came.
    case logGap(expected: UInt64, found: UInt64)
    /// A logged command no longer applies to the state before it: the log and the engine disagree.
    case logDiverged(sequence: UInt64)
    /// The operating system refused something the coordinator needs.
    case system(String)

    public var description: String {
        switch self {
        case .noEtcdEndpoints: "HA mode needs etcd endpoints (--etcd)"
        case .logGap(let expected, let found): "log gap: expected sequence \(expected), found \(found)"
        case .logDiverged(let sequence):
            "log entry \(sequence) no longer applies: refusing to serve a state that differs from what was acknowledged"
        case .system(let message): message
        }
    }
}
