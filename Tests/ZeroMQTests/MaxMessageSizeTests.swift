import CamsyncTestSupport
import Testing
@testable import ZeroMQ

@Suite(.ownThreads) struct MaxMessageSizeTests {
    /// MAXMSGSIZE is enforced by the wire decoder, so only on ipc and tcp (not inproc).
    @Test(arguments: [Transport.ipc, .tcp])
    func oversizedMessageDisconnectsSenderAndReceiverKeepsServing(_ transport: Transport) throws {
        let context = try ZMQContext()
        let endpoints = TestEndpoints()
        let router = try makeSocket(context, .router, receiveTimeoutMs: 5000)
        try router.set(.maxMessageSize(1024))
        let monitor = try router.monitor()
        let endpoint = try endpoints.bind(router, transport)

        let bad = try makeSocket(context, .dealer)
        try bad.set([.routingID(bytes("bad")), .reconnectInterval(milliseconds: -1)])
        try bad.connect(endpoint)
        #expect(try bad.send([[UInt8](repeating: 7, count: 4096)]))

        let disconnected = try monitor.waitForEvent(timeoutMs: 5000) {
            if case .disconnected = $0 { return true } else { return false }
        }
        #expect(disconnected != nil, "the oversized sender was not disconnected")

        let good = try makeSocket(context, .dealer)
        try good.set(.routingID(bytes("good")))
        try good.connect(endpoint)
        #expect(try good.send([bytes("small")]))
        let message = try #require(try router.receive())
        #expect(message.frames == [bytes("good"), bytes("small")])

        // The oversized message was never delivered.
        try router.set(.receiveTimeout(milliseconds: 200))
        #expect(try router.receive() == nil)
        // And the good peer is still served.
        #expect(try router.send([bytes("good"), bytes("ok")]))
        #expect(try good.receive()?.frames == [bytes("ok")])
    }
}
