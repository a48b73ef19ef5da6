import CamsyncPolicy
import Testing
@testable import CamsyncNode

/// C8 at the resource: the hosting node lets only the highest token it has seen capture.
@Suite struct CameraFenceTests {
    let system = CameraSystemID.builtIn(device: "ipad-1")
    let call = AppID(device: "ipad-1", bundleID: "com.example.call")
    let camera = AppID(device: "ipad-1", bundleID: "com.apple.camera")

    @Test("C8: a newer token is allowed, an older or equal one is refused")
    func tokensFence() {
        var fence = CameraFence(host: "ipad-1")
        #expect(fence.observe(.cameraGranted(system, call, GrantToken(1)))?.kind == .allowed)
        #expect(fence.observe(.cameraGranted(system, camera, GrantToken(2)))?.kind == .allowed)
        #expect(fence.capturing[system]?.app == camera)
        #expect(fence.observe(.cameraGranted(system, call, GrantToken(2)))?.kind == .refusedStale(highest: GrantToken(2)))
        #expect(fence.observe(.cameraGranted(system, call, GrantToken(1)))?.kind == .refusedStale(highest: GrantToken(2)))
        #expect(fence.capturing[system]?.app == camera, "a refused grant changes nothing")
    }

    @Test("releases close only the current holder; other hosts' systems are ignored")
    func releasesAndOtherHosts() {
        var fence = CameraFence(host: "ipad-1")
        _ = fence.observe(.cameraGranted(system, call, GrantToken(1)))
        #expect(fence.observe(.cameraReleased(system, camera)) == nil)
        #expect(fence.observe(.cameraReleased(system, call))?.kind == .released)
        #expect(fence.capturing[system] == nil)
        let other = CameraSystemID.builtIn(device: "ipad-2")
        #expect(fence.observe(.cameraGranted(other, AppID(device: "ipad-2", bundleID: "x"), GrantToken(9))) == nil)
    }

    @Test("adopting a snapshot follows its holder, never going back to an older token")
    func adoptSnapshot() {
        var fence = CameraFence(host: "ipad-1")
        _ = fence.observe(.cameraGranted(system, call, GrantToken(5)))
        var state = ClusterState()
        state.cameraSystems[system] = CameraSystemRecord(id: system, cameras: [], holder: camera, lastToken: GrantToken(7))
        let decisions = fence.adopt(state)
        #expect(decisions.map(\.kind) == [.released, .allowed])
        #expect(decisions.allSatisfy { $0.fromSnapshot })
        #expect(fence.capturing[system] == CameraFence.Holder(app: camera, token: GrantToken(7)))
        // A stale snapshot (older token) is refused.
        state.cameraSystems[system]?.lastToken = GrantToken(3)
        state.cameraSystems[system]?.holder = call
        #expect(fence.adopt(state).map(\.kind) == [.refusedStale(highest: GrantToken(7))])
        #expect(fence.capturing[system]?.app == camera)
    }
}
