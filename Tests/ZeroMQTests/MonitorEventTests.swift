import CamsyncTestSupport
import Testing
@testable import ZeroMQ

@Suite(.ownThreads) struct MonitorEventTests {
    static func frame(_ event: UInt16, _ value: UInt32) -> [UInt8] {
        withUnsafeBytes(of: event) { Array($0) } + withUnsafeBytes(of: value) { Array($0) }
    }

    @Test(arguments: [
        (UInt16(0x0001), UInt32(9), MonitorEvent.connected(endpoint: "tcp://x:1")),
        (0x0200, 9, .disconnected(endpoint: "tcp://x:1")),
        (0x1000, 0, .handshakeSucceeded(endpoint: "tcp://x:1")),
        (0x4000, 400, .handshakeFailedAuth(endpoint: "tcp://x:1", statusCode: 400)),
        (0x2000, 0x1100_0002, .handshakeFailedProtocol(endpoint: "tcp://x:1", code: 0x1100_0002)),
        (0x0800, 0, .handshakeFailedNoDetail(endpoint: "tcp://x:1")),
        (0x0020, 12, .accepted(endpoint: "tcp://x:1")),
        (0x0008, 11, .listening(endpoint: "tcp://x:1")),
        (0x0080, 12, .closed(endpoint: "tcp://x:1")),
        (0x0002, 0, .connectDelayed(endpoint: "tcp://x:1")),
        (0x0004, 200, .connectRetried(endpoint: "tcp://x:1", intervalMs: 200)),
        (0x0400, 0, .monitorStopped),
        (0x0010, 98, .other(event: 0x0010, value: 98, endpoint: "tcp://x:1")),
    ])
    func decodes(_ event: UInt16, _ value: UInt32, _ expected: MonitorEvent) {
        #expect(MonitorEvent(frames: [Self.frame(event, value), bytes("tcp://x:1")]) == expected)
    }

    @Test func malformedIsNil() {
        #expect(MonitorEvent(frames: [[1, 2, 3]]) == nil)
        #expect(MonitorEvent(frames: [[1, 2, 3], []]) == nil)
    }

    @Test func liveEventsForListenAcceptConnect() throws {
        let context = try ZMQContext()
        let server = try makeSocket(context, .router)
        let serverMonitor = try server.monitor()
        try server.bind("tcp://127.0.0.1:*")
        let endpoint = try server.lastEndpoint
        #expect(try serverMonitor.nextEvent(timeoutMs: 1000) == .listening(endpoint: endpoint))

        let client = try makeSocket(context, .dealer)
        let clientMonitor = try client.monitor()
        try client.connect(endpoint)
        #expect(try clientMonitor.waitForEvent(timeoutMs: 5000) { $0 == .handshakeSucceeded(endpoint: endpoint) } != nil)
        #expect(try serverMonitor.waitForEvent(timeoutMs: 5000) {
            if case .accepted = $0 { return true } else { return false }
        } != nil)

        server.close()
        #expect(try clientMonitor.waitForEvent(timeoutMs: 5000) { $0 == .disconnected(endpoint: endpoint) } != nil)
        clientMonitor.stop()
        #expect(try clientMonitor.nextEvent(timeoutMs: 0) == nil)
    }
}
