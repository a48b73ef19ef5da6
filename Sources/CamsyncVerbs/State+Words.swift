public import CamsyncPolicy

extension Scene {
    /// `fullScreen`, `stage window on display-1 at 0,0,800,600`, `background`.
    public var words: String {
        switch self {
        case .stageWindow(let window): "stage window on \(window.screen) at \(window.frame.words)"
        case .notRunning: "not running"
        default: description
        }
    }
}

extension SessionState {
    /// `running`, `stopped`, `interrupted videoDeviceInUseByAnotherClient (3)`.
    public var words: String {
        switch self {
        case .running: "running"
        case .stopped: "stopped"
        case .interrupted(let reason): "interrupted \(reason) (\(reason.rawValue))"
        }
    }
}

extension PiPWindowState {
    /// `inactive`, `active on ipad-1 at 24,24,320,180`, `… stashed`, `suspended`.
    public var words: String {
        switch self {
        case .inactive: "inactive"
        case .suspended: "suspended"
        case .active(let screen, let frame, let stashed): "active on \(screen) at \(frame.words)\(stashed ? ", stashed" : "")"
        }
    }
}
