public import CamsyncPolicy

// MARK: - Enums (SPEC §1, L2)

extension Camsync_V1_NodeKind {
    public init(_ value: NodeKind) {
        switch value {
        case .device: self = .device
        case .display: self = .display
        }
    }
}

extension NodeKind {
    public init(wire: Camsync_V1_NodeKind, field: String = "kind") throws(WireMappingError) {
        self = try decodeEnum(wire, field) {
            switch $0 {
            case .device: .device
            case .display: .display
            case .unspecified, .UNRECOGNIZED: nil
            }
        }
    }
}

extension Camsync_V1_LayoutDirection {
    public init(_ value: LayoutDirection) {
        switch value {
        case .leftToRight: self = .leftToRight
        case .rightToLeft: self = .rightToLeft
        }
    }
}

extension LayoutDirection {
    public init(wire: Camsync_V1_LayoutDirection, field: String = "layout_direction") throws(WireMappingError) {
        self = try decodeEnum(wire, field) {
            switch $0 {
            case .leftToRight: .leftToRight
            case .rightToLeft: .rightToLeft
            case .unspecified, .UNRECOGNIZED: nil
            }
        }
    }
}

extension Camsync_V1_CameraPosition {
    public init(_ value: CameraPosition) {
        switch value {
        case .front: self = .front
        case .back: self = .back
        case .lidarDepth: self = .lidarDepth
        case .external: self = .external
        case .telephoto: self = .telephoto
        case .ultraWide: self = .ultraWide
        }
    }
}

extension CameraPosition {
    public init(wire: Camsync_V1_CameraPosition, field: String = "position") throws(WireMappingError) {
        self = try decodeEnum(wire, field) {
            switch $0 {
            case .front: .front
            case .back: .back
            case .lidarDepth: .lidarDepth
            case .external: .external
            case .telephoto: .telephoto
            case .ultraWide: .ultraWide
            case .unspecified, .UNRECOGNIZED: nil
            }
        }
    }
}

// MARK: - CameraSpec

extension Camsync_V1_CameraSpec {
    public init(_ spec: CameraSpec) {
        self.init()
        name = spec.name
        position = Camsync_V1_CameraPosition(spec.position)
    }
}

extension CameraSpec {
    /// `name` non-empty, `position` specified.
    public init(wire: Camsync_V1_CameraSpec) throws(WireMappingError) {
        self.init(name: try nonEmpty(wire.name, "name"), position: try CameraPosition(wire: wire.position))
    }
}

func cameraSpecs(_ wire: [Camsync_V1_CameraSpec], _ field: String) throws(WireMappingError) -> [CameraSpec] {
    var result: [CameraSpec] = []
    result.reserveCapacity(wire.count)
    for (index, spec) in wire.enumerated() {
        result.append(try within("\(field)[\(index)]") { () throws(WireMappingError) in try CameraSpec(wire: spec) })
    }
    return result
}

// MARK: - Device and display attributes

extension Camsync_V1_DeviceAttributes {
    public init(_ attributes: DeviceAttributes) {
        self.init()
        model = attributes.model
        osMajor = Int64(attributes.osMajor)
        pipSupported = attributes.pipSupported
        multitaskingCameraSupported = attributes.multitaskingCameraSupported
        stageManagerSupported = attributes.stageManagerSupported
        stageManagerEnabled = attributes.stageManagerEnabled
        layoutDirection = Camsync_V1_LayoutDirection(attributes.layoutDirection)
        autoPipEnabled = attributes.autoPiPEnabled
        cameras = attributes.cameras.map(Camsync_V1_CameraSpec.init)
        apps = attributes.apps.map(Camsync_V1_AppSpec.init)
        isMultiCamSupported = attributes.isMultiCamSupported
        lidarDepthCameraSupported = attributes.lidarDepthCameraSupported
    }
}

extension DeviceAttributes {
    /// `layout_direction` specified; every camera and app valid.
    public init(wire: Camsync_V1_DeviceAttributes) throws(WireMappingError) {
        var apps: [AppSpec] = []
        apps.reserveCapacity(wire.apps.count)
        for (index, app) in wire.apps.enumerated() {
            apps.append(try within("apps[\(index)]") { () throws(WireMappingError) in try AppSpec(wire: app) })
        }
        self.init(
            model: wire.model,
            osMajor: Int(truncatingIfNeeded: wire.osMajor),
            pipSupported: wire.pipSupported,
            multitaskingCameraSupported: wire.multitaskingCameraSupported,
            stageManagerSupported: wire.stageManagerSupported,
            stageManagerEnabled: wire.stageManagerEnabled,
            layoutDirection: try LayoutDirection(wire: wire.layoutDirection),
            autoPiPEnabled: wire.autoPipEnabled,
            cameras: try cameraSpecs(wire.cameras, "cameras"),
            apps: apps,
            // C14: absent → the model list (DeviceModelCatalog).
            isMultiCamSupported: wire.hasIsMultiCamSupported ? wire.isMultiCamSupported : nil,
            lidarDepthCameraSupported: wire.hasLidarDepthCameraSupported ? wire.lidarDepthCameraSupported : nil
        )
    }
}

extension Camsync_V1_DisplayAttributes {
    public init(_ attributes: DisplayAttributes) {
        self.init()
        name = attributes.name
        if let device = attributes.attachedTo { attachedTo = device.rawValue }
        cameras = attributes.cameras.map(Camsync_V1_CameraSpec.init)
    }
}

extension DisplayAttributes {
    /// `attached_to`, when present, non-empty; every camera valid.
    public init(wire: Camsync_V1_DisplayAttributes) throws(WireMappingError) {
        self.init(
            name: wire.name,
            attachedTo: wire.hasAttachedTo ? try nodeID(wire.attachedTo, "attached_to") : nil,
            cameras: try cameraSpecs(wire.cameras, "cameras")
        )
    }
}

// MARK: - AppAssertion (K2)

extension Camsync_V1_AppAssertion {
    public init(_ assertion: AppAssertion) {
        self.init()
        bundleID = assertion.bundleID
        scene = Camsync_V1_Scene(assertion.scene)
        if let session = assertion.session { self.session = Camsync_V1_SessionConfiguration(session) }
        sessionWantsToRun = assertion.sessionWantsToRun
        if let pip = assertion.pip { self.pip = Camsync_V1_PipControllerSetup(pip) }
    }
}

extension AppAssertion {
    /// `bundle_id` non-empty, `scene` present; `session` and `pip` valid when present.
    public init(wire: Camsync_V1_AppAssertion) throws(WireMappingError) {
        self.init(
            bundleID: try nonEmpty(wire.bundleID, "bundle_id"),
            scene: try requireScene(wire.hasScene, wire.scene, "scene"),
            session: wire.hasSession
                ? try within("session") { () throws(WireMappingError) in try SessionConfiguration(wire: wire.session) } : nil,
            sessionWantsToRun: wire.sessionWantsToRun,
            pip: wire.hasPip ? try requirePipSetup(true, wire.pip, "pip") : nil
        )
    }
}

// MARK: - NodeRegistration (K1, K2)

extension Camsync_V1_NodeRegistration {
    public init(_ registration: NodeRegistration) {
        self.init()
        node = registration.node.rawValue
        switch registration.attributes {
        case .device(let device): attributes = .device(Camsync_V1_DeviceAttributes(device))
        case .display(let display): attributes = .display(Camsync_V1_DisplayAttributes(display))
        }
        assertions = registration.assertions.map(Camsync_V1_AppAssertion.init)
    }
}

extension NodeRegistration {
    /// `node` non-empty, exactly one attributes case, every assertion valid.
    public init(wire: Camsync_V1_NodeRegistration) throws(WireMappingError) {
        let node = try nodeID(wire.node, "node")
        let attributes: Attributes
        switch wire.attributes {
        case .device(let device)?:
            attributes = .device(try within("device") { () throws(WireMappingError) in try DeviceAttributes(wire: device) })
        case .display(let display)?:
            attributes = .display(try within("display") { () throws(WireMappingError) in try DisplayAttributes(wire: display) })
        case nil:
            throw WireMappingError("attributes", .missing)
        }
        var assertions: [AppAssertion] = []
        assertions.reserveCapacity(wire.assertions.count)
        for (index, assertion) in wire.assertions.enumerated() {
            assertions.append(try within("assertions[\(index)]") { () throws(WireMappingError) in try AppAssertion(wire: assertion) })
        }
        self.init(node: node, attributes: attributes, assertions: assertions)
    }
}
