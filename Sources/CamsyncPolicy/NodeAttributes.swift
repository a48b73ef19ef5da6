/// Whether a node stands in for an iPad or an external display.
public enum NodeKind: String, Hashable, Codable, Sendable, CaseIterable {
    case device
    case display
}

/// Left-to-right or right-to-left layout (L2: the split primary is the left app, the right one in RTL).
public enum LayoutDirection: String, Hashable, Codable, Sendable, CaseIterable {
    case leftToRight
    case rightToLeft
}

/// Where a camera faces and, on the back, which camera it is (seed 002: front, the back wide-angle
/// camera, the LiDAR Depth Camera, the Telephoto and Ultra Wide cameras; external).
public enum CameraPosition: String, Hashable, Codable, Sendable, CaseIterable {
    case front
    /// The back (rear-facing) wide-angle camera.
    case back
    /// The LiDAR Depth Camera: a virtual camera over the back wide-angle camera (C14).
    case lidarDepth
    case external
    /// The back Telephoto camera (C14).
    case telephoto
    /// The back Ultra Wide camera (C14).
    case ultraWide
}

/// A camera as a node declares it when it registers.
public struct CameraSpec: Hashable, Codable, Sendable {
    public var name: String
    public var position: CameraPosition
    public init(name: String, position: CameraPosition) {
        self.name = name
        self.position = position
    }
}

/// What an iPad declares about itself (SPEC §1 "Device node").
public struct DeviceAttributes: Hashable, Codable, Sendable {
    public var model: String
    /// iPadOS major version, 9…26.
    public var osMajor: Int
    public var pipSupported: Bool
    /// The hardware side of C3.
    public var multitaskingCameraSupported: Bool
    public var stageManagerSupported: Bool
    /// Whether the user turned Stage Manager on (L3). Only meaningful when supported.
    public var stageManagerEnabled: Bool
    public var layoutDirection: LayoutDirection
    /// Settings > General > Multitasking > Persistent Video Overlay (seed 003, P3).
    public var autoPiPEnabled: Bool
    public var cameras: [CameraSpec]
    public var apps: [AppSpec]
    /// C14: `AVCaptureMultiCamSession.isMultiCamSupported` on this model.
    public var isMultiCamSupported: Bool
    /// C14: the model has a LiDAR scanner and so the LiDAR Depth Camera.
    public var lidarDepthCameraSupported: Bool

    /// `isMultiCamSupported` and `lidarDepthCameraSupported` default to what `DeviceModelCatalog`
    /// says of `model` (docs/POLICY.md lists the models).
    public init(
        model: String, osMajor: Int, pipSupported: Bool = true, multitaskingCameraSupported: Bool = true,
        stageManagerSupported: Bool = true, stageManagerEnabled: Bool = false,
        layoutDirection: LayoutDirection = .leftToRight, autoPiPEnabled: Bool = true,
        cameras: [CameraSpec] = [], apps: [AppSpec] = [],
        isMultiCamSupported: Bool? = nil, lidarDepthCameraSupported: Bool? = nil
    ) {
        let capabilities = DeviceModelCatalog.capabilities(of: model)
        self.isMultiCamSupported = isMultiCamSupported ?? capabilities.isMultiCamSupported
        self.lidarDepthCameraSupported = lidarDepthCameraSupported ?? capabilities.lidarDepthCameraSupported
        self.model = model
        self.osMajor = osMajor
        self.pipSupported = pipSupported
        self.multitaskingCameraSupported = multitaskingCameraSupported
        self.stageManagerSupported = stageManagerSupported
        self.stageManagerEnabled = stageManagerEnabled
        self.layoutDirection = layoutDirection
        self.autoPiPEnabled = autoPiPEnabled
        self.cameras = cameras
        self.apps = apps
    }
}

/// What an external display declares about itself (SPEC §1 "Display node").
public struct DisplayAttributes: Hashable, Codable, Sendable {
    public var name: String
    /// The device its configuration names, if any (SPEC §1): it attaches to it at registration when
    /// that device is alive, later by its own `attachDisplay`; only an admin attaches it elsewhere.
    public var attachedTo: NodeID?
    /// Display cameras; each is a camera system of its own [policy].
    public var cameras: [CameraSpec]

    public init(name: String, attachedTo: NodeID? = nil, cameras: [CameraSpec] = []) {
        self.name = name
        self.attachedTo = attachedTo
        self.cameras = cameras
    }
}

/// A node's registration: who it is and, on re-registration (K2), what it still runs.
public struct NodeRegistration: Hashable, Codable, Sendable {
    public enum Attributes: Hashable, Codable, Sendable {
        case device(DeviceAttributes)
        case display(DisplayAttributes)
    }

    public var node: NodeID
    public var attributes: Attributes
    /// K2: what the node still runs when it comes back. Empty on a first registration.
    public var assertions: [AppAssertion]

    public init(node: NodeID, attributes: Attributes, assertions: [AppAssertion] = []) {
        self.node = node
        self.attributes = attributes
        self.assertions = assertions
    }

    public var kind: NodeKind {
        switch attributes {
        case .device: .device
        case .display: .display
        }
    }
}

/// K2: one app's state as the node that runs it still sees it.
public struct AppAssertion: Hashable, Codable, Sendable {
    public var bundleID: String
    public var scene: Scene
    /// The session configuration, if the app had one.
    public var session: SessionConfiguration?
    /// Whether the app still wants its capture session to run.
    public var sessionWantsToRun: Bool
    /// The PiP controller, if the app still has one set up.
    public var pip: PiPControllerSetup?

    public init(bundleID: String, scene: Scene, session: SessionConfiguration? = nil,
                sessionWantsToRun: Bool = false, pip: PiPControllerSetup? = nil) {
        self.bundleID = bundleID
        self.scene = scene
        self.session = session
        self.sessionWantsToRun = sessionWantsToRun
        self.pip = pip
    }
}
