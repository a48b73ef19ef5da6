import CamsyncPolicy

/// One decision of the camera fence (C8), with when it was taken: the node's capture
/// history for the cameras it hosts, which `ctl` and the soak checker read.
public struct FenceRecord: Sendable, Equatable, CustomStringConvertible {
    public var decision: CameraFence.Decision
    public var sequence: UInt64
    public var wallMilliseconds: Int64

    public init(decision: CameraFence.Decision, sequence: UInt64, wallMilliseconds: Int64) {
        self.decision = decision
        self.sequence = sequence
        self.wallMilliseconds = wallMilliseconds
    }

    public var description: String {
        let d = decision
        let source = d.fromSnapshot ? " source=snapshot" : ""
        switch d.kind {
        case .allowed: return "fence allow system=\(d.system) app=\(d.app) token=\(d.token.value) seq=\(sequence)\(source)"
        case .refusedStale(let highest):
            return "fence refuse system=\(d.system) app=\(d.app) token=\(d.token.value) highest=\(highest.value) seq=\(sequence)\(source)"
        case .released: return "fence release system=\(d.system) app=\(d.app) token=\(d.token.value) seq=\(sequence)\(source)"
        }
    }
}
