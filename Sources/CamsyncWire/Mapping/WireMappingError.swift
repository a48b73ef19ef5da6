import Foundation

/// Why a wire message could not be turned into a domain value: which field was bad
/// and how. Thrown by every `init(wire:)` in this module; never a crash.
///
/// `field` is a dotted path from the outermost message that was being mapped, e.g.
/// `command.move_pip.frame` or `state.apps[2].session.state.reason` (proto field names).
public struct WireMappingError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Problem: Hashable, Sendable, CustomStringConvertible {
        /// A required message field or oneof is not set.
        case missing
        /// A required string (an id) is empty.
        case empty
        /// An enum field holds its `*_UNSPECIFIED` (0) value.
        case unspecified
        /// An enum field holds a number this schema does not know (a newer peer?).
        case unrecognized(Int)
        /// A key appears twice in a keyed list (ClusterState).
        case duplicate(String)
        /// Fields that contradict each other (e.g. a stage window on a full-screen scene).
        case inconsistent(String)
        /// A oneof holds a case this schema does not know (field number), e.g. a command from a newer peer.
        case unknownCase(UInt64)

        public var description: String {
            switch self {
            case .missing: "is missing"
            case .empty: "is empty"
            case .unspecified: "is UNSPECIFIED"
            case .unrecognized(let n): "has unknown enum value \(n)"
            case .duplicate(let key): "has duplicate key \(key)"
            case .inconsistent(let why): "is inconsistent: \(why)"
            case .unknownCase(let number): "is a case this peer does not know (field \(number))"
            }
        }
    }

    public var field: String
    public var problem: Problem

    public init(_ field: String, _ problem: Problem) {
        self.field = field
        self.problem = problem
    }

    public var description: String { "\(field) \(problem)" }

    /// The same error with `prefix` put in front of the field path.
    func prefixed(_ prefix: String) -> WireMappingError {
        WireMappingError(field.isEmpty ? prefix : "\(prefix).\(field)", problem)
    }
}

/// Runs `body`, putting `prefix` in front of the field path of any error it throws.
/// Paths are only built on the error path, so decoding stays allocation-light.
@inline(__always)
func within<T>(_ prefix: @autoclosure () -> String, _ body: () throws(WireMappingError) -> T) throws(WireMappingError) -> T {
    do {
        return try body()
    } catch {
        throw error.prefixed(prefix())
    }
}

extension WireMappingError.Problem {
    /// Why a oneof is unset: missing, or holding a case this schema does not know (swift-protobuf
    /// keeps such a field in the message's unknown fields).
    static func unsetOneof(_ unknownFields: Data) -> Self {
        let fields = ProtobufWire.parsePrefix([UInt8](unknownFields), depth: 0).fields
        return fields.first.map { .unknownCase($0.number) } ?? .missing
    }
}
