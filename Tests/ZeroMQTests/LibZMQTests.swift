import Testing
@testable import ZeroMQ

@Suite struct LibZMQTests {
    @Test func versionIsAtLeast4_3() {
        let v = LibZMQ.version
        #expect(v.major == 4 && v.minor >= 3)
    }

    @Test func curveIsAvailable() {
        #expect(LibZMQ.has("curve"))
        #expect(!LibZMQ.has("no-such-capability"))
    }

    @Test func errorCarriesStrerrorText() {
        let e = ZMQError(code: 11, operation: "recv")  // EAGAIN
        #expect(e.message.contains("temporarily unavailable"))
        #expect(e.description.hasPrefix("recv: "))
    }
}
