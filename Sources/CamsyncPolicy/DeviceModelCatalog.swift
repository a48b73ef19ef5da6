/// C14 [policy: model list]: which iPad models can run an AVCaptureMultiCamSession and which have a
/// LiDAR scanner (so the LiDAR Depth Camera). A device's registration may state both attributes;
/// when it does not, they come from this list by the exact model name. docs/POLICY.md gives the
/// reasons for the list.
public enum DeviceModelCatalog {
    public struct Capabilities: Hashable, Sendable {
        public var isMultiCamSupported: Bool
        public var lidarDepthCameraSupported: Bool
        public init(isMultiCamSupported: Bool, lidarDepthCameraSupported: Bool) {
            self.isMultiCamSupported = isMultiCamSupported
            self.lidarDepthCameraSupported = lidarDepthCameraSupported
        }
    }

    /// MultiCam: iPad Pro from the 2018 models on (A12X and later; WWDC19 "Introducing Multi-Camera
    /// Capture for iOS" names the 2018 iPad Pro).
    public static let multiCamModels: Set<String> = Set([
        "iPad Pro (11-inch)", "iPad Pro (12.9-inch, 3rd generation)",
        "iPad Pro (11-inch, 2nd generation)", "iPad Pro (12.9-inch, 4th generation)",
    ]).union(lidarDepthCameraModels)

    /// The LiDAR Depth Camera: seed 002 names "iPad Pro 5th generation" (the 2021 M1 models) and
    /// later, not the 2020 models that already had the scanner for ARKit.
    public static let lidarDepthCameraModels: Set<String> = [
        "iPad Pro (12.9-inch, 5th generation)", "iPad Pro (11-inch, 3rd generation)",
        "iPad Pro (12.9-inch, 6th generation)", "iPad Pro (11-inch, 4th generation)",
        "iPad Pro (11-inch) (M4)", "iPad Pro (13-inch) (M4)", "iPad Pro (M4)",
    ]

    /// What the list says of a model name; an unknown model has neither.
    public static func capabilities(of model: String) -> Capabilities {
        Capabilities(isMultiCamSupported: multiCamModels.contains(model),
                     lidarDepthCameraSupported: lidarDepthCameraModels.contains(model))
    }
}
