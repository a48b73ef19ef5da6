import CamsyncPolicy
import CamsyncWire
import SwiftProtobuf
import Testing

/// Capture graphs on the wire (C11–C14): compatible proto3 additions to v1.
@Suite struct CaptureGraphWireTests {
    static let back = CameraID(host: "ipad-1", name: "back")
    static let tele = CameraID(host: "ipad-1", name: "telephoto")

    static let graphs: [SessionConfiguration] = [
        SessionConfiguration(camera: back, outputs: [.videoData, .videoData, .movieFile, .audioData], resolution: .uhd4K,
                             audioInput: true, videoDataResolutions: [.uhd4K, .hd720]),
        SessionConfiguration(camera: back, runByARKit: true),
        SessionConfiguration(camera: back, resolution: .hd720, additionalCameras: [tele, CameraID(host: "ipad-1", name: "ultra-wide")]),
    ]

    @Test(arguments: graphs)
    func sessionConfigurationsRoundTrip(_ configuration: SessionConfiguration) throws {
        let bytes: [UInt8] = try Camsync_V1_SessionConfiguration(configuration).serializedBytes()
        #expect(try SessionConfiguration(wire: Camsync_V1_SessionConfiguration(serializedBytes: bytes)) == configuration)
    }

    /// A peer that predates capture graphs sends none of the new fields: one camera, no ARKit, every
    /// video data output at the session's resolution.
    @Test func olderConfigurationsDecodeAsBefore() throws {
        var wire = Camsync_V1_SessionConfiguration(Self.graphs[0])
        wire.videoDataResolutions = []
        wire.additionalCameras = []
        wire.runByArkit = false
        let decoded = try SessionConfiguration(wire: wire)
        #expect(decoded.videoDataResolutions.isEmpty && decoded.additionalCameras.isEmpty && !decoded.runByARKit)
        #expect(decoded.videoDataOutputResolutions == [.uhd4K, .uhd4K])
    }

    /// C14: absent attributes come from the model list; stated ones win.
    @Test(arguments: [("iPad Pro (12.9-inch, 6th generation)", true, true), ("iPad Air (4th generation)", false, false)])
    func deviceAttributesFromTheModelList(_ model: String, _ multiCam: Bool, _ lidar: Bool) throws {
        var wire = Camsync_V1_DeviceAttributes(DeviceAttributes(model: model, osMajor: 17))
        #expect(wire.hasIsMultiCamSupported && wire.hasLidarDepthCameraSupported, "always sent")
        wire.clearIsMultiCamSupported()
        wire.clearLidarDepthCameraSupported()
        let absent = try DeviceAttributes(wire: wire)
        #expect(absent.isMultiCamSupported == multiCam && absent.lidarDepthCameraSupported == lidar)
        wire.isMultiCamSupported = !multiCam
        wire.lidarDepthCameraSupported = !lidar
        let stated = try DeviceAttributes(wire: wire)
        #expect(stated.isMultiCamSupported == !multiCam && stated.lidarDepthCameraSupported == !lidar)
    }

    @Test func badCaptureGraphFieldsAreNamed() {
        var wire = Camsync_V1_SessionConfiguration(Self.graphs[0])
        wire.videoDataResolutions = [.uhd4K, .unspecified]
        #expect(throws: WireMappingError("video_data_resolutions[1]", .unspecified)) { try SessionConfiguration(wire: wire) }
        wire = Camsync_V1_SessionConfiguration(Self.graphs[2])
        wire.additionalCameras[1].host = ""
        #expect(throws: WireMappingError.self) { try SessionConfiguration(wire: wire) }
    }

    @Test(arguments: [Rejection.Code.captureGraphUnsupported, .multiCamUnsupported])
    func newRejectionCodesRoundTrip(_ code: Rejection.Code) throws {
        #expect(try Rejection.Code(wire: Camsync_V1_RejectionCode(code)) == code)
    }
}
