/// A window frame in points on one screen.
public struct Frame: Hashable, Codable, Sendable, CustomStringConvertible {
    public var x: Int
    public var y: Int
    public var width: Int
    public var height: Int
    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }
    public var description: String { "\(width)x\(height)@\(x),\(y)" }
}

/// A Stage Manager window: which screen (the device itself or an attached display) and where.
public struct StageWindow: Hashable, Codable, Sendable {
    public var screen: NodeID
    public var frame: Frame
    public init(screen: NodeID, frame: Frame) {
        self.screen = screen
        self.frame = frame
    }
}

/// Where an app is shown (SPEC §1 "Scene").
public enum Scene: Hashable, Codable, Sendable {
    case notRunning
    case fullScreen
    case splitPrimary
    case splitSecondary
    case slideOver
    case stageWindow(StageWindow)
    case background
    case terminated

    /// Whether the scene puts the app on a screen (L6 counts these as visible).
    public var isVisible: Bool {
        switch self {
        case .fullScreen, .splitPrimary, .splitSecondary, .slideOver, .stageWindow: true
        case .notRunning, .background, .terminated: false
        }
    }

    /// Whether the app process is running (anything but not running / terminated).
    public var isRunning: Bool {
        switch self {
        case .notRunning, .terminated: false
        default: true
        }
    }
}

/// The role reported for every running app (L5).
public enum Role: String, Hashable, Codable, Sendable, CaseIterable {
    case primary
    case secondary
    /// In background while its PiP window is active (seed 003).
    case backgroundMedia
    case background
}

/// Which side of the screen a split request puts the app on (L2).
public enum SplitSide: String, Hashable, Codable, Sendable, CaseIterable {
    case left
    case right
}

/// Why an app went to the background (P3 lists the three ways).
public enum BackgroundCause: String, Hashable, Codable, Sendable, CaseIterable {
    case homeGesture
    case otherAppOpened
    case notificationTapped
}

/// How a full-screen open was triggered.
public enum OpenTrigger: String, Hashable, Codable, Sendable, CaseIterable {
    /// From the Home Screen, Dock or App Switcher.
    case user
    /// The user tapped one of the app's notifications (the replaced app gets `notificationTapped`).
    case notification
}
