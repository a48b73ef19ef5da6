public import CamsyncPolicy

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
        switch decision {
        case .allowed(let app, let token): "fence allow app=\(app) token=\(token.value) seq=\(sequence)"
        case .refusedStale(let app, let token, let highest):
            "fence refuse app=\(app) token=\(token.value) highest=\(highest.value) seq=\(sequence)"
        case .released(let app, let token): "fence release app=\(app) token=\(token.value) seq=\(sequence)"
        case .ignored: "fence ignored seq=\(sequence)"
        }
    }
}
