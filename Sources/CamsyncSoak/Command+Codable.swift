public import CamsyncPolicy

// JSON-lines support for `Command`: {"case": name, …payload}. Field names follow the case labels;
// unlabeled payloads are "app", "node", "system", "level", "spec", "window", "setup", "configuration",
// "output", "direction", "registration".
extension Command: Codable {
    public init(from decoder: any Decoder) throws {
        let c = try keyed(decoder)
        switch try c.tag() {
        case "registerNode": self = .registerNode(try c.req("registration"))
        case "unregisterNode": self = .unregisterNode(try c.req("node"))
        case "declareNodeDead": self = .declareNodeDead(try c.req("node"))
        case "attachDisplay": self = .attachDisplay(display: try c.req("display"), device: try c.req("device"))
        case "detachDisplay": self = .detachDisplay(display: try c.req("display"))
        case "setStageManager": self = .setStageManager(device: try c.req("device"), enabled: try c.req("enabled"))
        case "setAutoPiP": self = .setAutoPiP(device: try c.req("device"), enabled: try c.req("enabled"))
        case "setLayoutDirection": self = .setLayoutDirection(device: try c.req("device"), try c.req("direction"))
        case "installApp": self = .installApp(device: try c.req("device"), try c.req("spec"))
        case "openFullScreen": self = .openFullScreen(try c.req("app"), trigger: try c.req("trigger"))
        case "split": self = .split(try c.req("app"), side: try c.req("side"))
        case "slideOver": self = .slideOver(try c.req("app"))
        case "stageOpen": self = .stageOpen(try c.req("app"), try c.req("window"))
        case "stageMove": self = .stageMove(try c.req("app"), try c.req("window"))
        case "stageClose": self = .stageClose(try c.req("app"))
        case "goHome": self = .goHome(device: try c.req("device"))
        case "sendToBackground": self = .sendToBackground(try c.req("app"), cause: try c.req("cause"))
        case "terminate": self = .terminate(try c.req("app"))
        case "reportMemory": self = .reportMemory(try c.req("app"), megabytes: try c.req("megabytes"))
        case "configureSession": self = .configureSession(try c.req("app"), try c.req("configuration"))
        case "startSession": self = .startSession(try c.req("app"))
        case "stopSession": self = .stopSession(try c.req("app"))
        case "startRecording": self = .startRecording(try c.req("app"), try c.req("output"))
        case "stopRecording": self = .stopRecording(try c.req("app"))
        case "setupPiP": self = .setupPiP(try c.req("app"), try c.req("setup"))
        case "setPiPContentSource": self = .setPiPContentSource(try c.req("app"), present: try c.req("present"))
        case "releasePiP": self = .releasePiP(try c.req("app"))
        case "startPiP": self = .startPiP(try c.req("app"), trigger: try c.req("trigger"))
        case "stashPiP": self = .stashPiP(try c.req("app"))
        case "unstashPiP": self = .unstashPiP(try c.req("app"))
        case "movePiP": self = .movePiP(try c.req("app"), screen: try c.req("screen"), frame: try c.req("frame"))
        case "closePiP": self = .closePiP(try c.req("app"))
        case "restorePiP": self = .restorePiP(try c.req("app"))
        case "completePiPRestore": self = .completePiPRestore(try c.req("app"))
        case "pipRestoreDeadlinePassed": self = .pipRestoreDeadlinePassed(try c.req("app"))
        case "setPressure": self = .setPressure(try c.req("system"), try c.req("level"))
        case let other: throw c.unknown(other, "Command")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = keyed(encoder)
        switch self {
        case .registerNode(let r): try c.tag("registerNode"); try c.put(r, "registration")
        case .unregisterNode(let n): try c.tag("unregisterNode"); try c.put(n, "node")
        case .declareNodeDead(let n): try c.tag("declareNodeDead"); try c.put(n, "node")
        case .attachDisplay(let display, let device):
            try c.tag("attachDisplay"); try c.put(display, "display"); try c.put(device, "device")
        case .detachDisplay(let display): try c.tag("detachDisplay"); try c.put(display, "display")
        case .setStageManager(let device, let enabled):
            try c.tag("setStageManager"); try c.put(device, "device"); try c.put(enabled, "enabled")
        case .setAutoPiP(let device, let enabled):
            try c.tag("setAutoPiP"); try c.put(device, "device"); try c.put(enabled, "enabled")
        case .setLayoutDirection(let device, let direction):
            try c.tag("setLayoutDirection"); try c.put(device, "device"); try c.put(direction, "direction")
        case .installApp(let device, let spec): try c.tag("installApp"); try c.put(device, "device"); try c.put(spec, "spec")
        case .openFullScreen(let app, let trigger):
            try c.tag("openFullScreen"); try c.put(app, "app"); try c.put(trigger, "trigger")
        case .split(let app, let side): try c.tag("split"); try c.put(app, "app"); try c.put(side, "side")
        case .slideOver(let app): try c.tag("slideOver"); try c.put(app, "app")
        case .stageOpen(let app, let window): try c.tag("stageOpen"); try c.put(app, "app"); try c.put(window, "window")
        case .stageMove(let app, let window): try c.tag("stageMove"); try c.put(app, "app"); try c.put(window, "window")
        case .stageClose(let app): try c.tag("stageClose"); try c.put(app, "app")
        case .goHome(let device): try c.tag("goHome"); try c.put(device, "device")
        case .sendToBackground(let app, let cause):
            try c.tag("sendToBackground"); try c.put(app, "app"); try c.put(cause, "cause")
        case .terminate(let app): try c.tag("terminate"); try c.put(app, "app")
        case .reportMemory(let app, let megabytes):
            try c.tag("reportMemory"); try c.put(app, "app"); try c.put(megabytes, "megabytes")
        case .configureSession(let app, let configuration):
            try c.tag("configureSession"); try c.put(app, "app"); try c.put(configuration, "configuration")
        case .startSession(let app): try c.tag("startSession"); try c.put(app, "app")
        case .stopSession(let app): try c.tag("stopSession"); try c.put(app, "app")
        case .startRecording(let app, let output):
            try c.tag("startRecording"); try c.put(app, "app"); try c.put(output, "output")
        case .stopRecording(let app): try c.tag("stopRecording"); try c.put(app, "app")
        case .setupPiP(let app, let setup): try c.tag("setupPiP"); try c.put(app, "app"); try c.put(setup, "setup")
        case .setPiPContentSource(let app, let present):
            try c.tag("setPiPContentSource"); try c.put(app, "app"); try c.put(present, "present")
        case .releasePiP(let app): try c.tag("releasePiP"); try c.put(app, "app")
        case .startPiP(let app, let trigger): try c.tag("startPiP"); try c.put(app, "app"); try c.put(trigger, "trigger")
        case .stashPiP(let app): try c.tag("stashPiP"); try c.put(app, "app")
        case .unstashPiP(let app): try c.tag("unstashPiP"); try c.put(app, "app")
        case .movePiP(let app, let screen, let frame):
            try c.tag("movePiP"); try c.put(app, "app"); try c.put(screen, "screen"); try c.put(frame, "frame")
        case .closePiP(let app): try c.tag("closePiP"); try c.put(app, "app")
        case .restorePiP(let app): try c.tag("restorePiP"); try c.put(app, "app")
        case .completePiPRestore(let app): try c.tag("completePiPRestore"); try c.put(app, "app")
        case .pipRestoreDeadlinePassed(let app): try c.tag("pipRestoreDeadlinePassed"); try c.put(app, "app")
        case .setPressure(let system, let level): try c.tag("setPressure"); try c.put(system, "system"); try c.put(level, "level")
        }
    }
}
