import Testing
@testable import ZeroMQ

@Suite struct ErrorTests {
    @Test(arguments: ["not-an-endpoint", "tcp://127.0.0.1:notaport", "nosuch://thing", "tcp://"])
    func bindToMalformedEndpointThrowsReadableError(_ endpoint: String) throws {
        let context = try ZMQContext()
        let socket = try makeSocket(context, .router)
        do {
            try socket.bind(endpoint)
            Issue.record("bind \(endpoint) succeeded")
        } catch let error as ZMQError {
            #expect(error.operation == "bind \(endpoint)")
            #expect(!error.message.isEmpty)
            #expect(error.description.contains(endpoint))
            #expect(error.code != 0)
        }
    }

    @Test func bindingTheSamePortTwiceFails() throws {
        let context = try ZMQContext()
        let a = try makeSocket(context, .pull)
        try a.bind("tcp://127.0.0.1:*")
        let endpoint = try a.lastEndpoint
        let b = try makeSocket(context, .pull)
        #expect(throws: ZMQError.self) { try b.bind(endpoint) }
    }

    @Test func closedSocketThrowsInsteadOfCrashing() throws {
        let context = try ZMQContext()
        let socket = try makeSocket(context, .dealer)
        socket.close()
        socket.close()  // idempotent
        #expect(socket.isClosed)

        func expectClosed(_ body: () throws -> Void) {
            do {
                try body()
                Issue.record("operation on a closed socket succeeded")
            } catch let error as ZMQError {
                #expect(error.isSocketClosed)
                #expect(error.description.contains("closed"))
            } catch {
                Issue.record("unexpected error \(error)")
            }
        }
        expectClosed { try socket.send([bytes("x")]) }
        expectClosed { try socket.send(bytes("x"), more: true) }
        expectClosed { _ = try socket.receive(dontWait: true) }
        expectClosed { try socket.bind("inproc://closed") }
        expectClosed { try socket.connect("inproc://closed") }
        expectClosed { try socket.unbind("inproc://closed") }
        expectClosed { try socket.disconnect("inproc://closed") }
        expectClosed { try socket.set(.linger(milliseconds: 0)) }
        expectClosed { _ = try socket.lastEndpoint }
        expectClosed { _ = try socket.monitor() }
        let poller = Poller()
        poller.register(socket)
        expectClosed { _ = try poller.poll(timeoutMs: 0) }
    }

    @Test func misuseIsAnErrorNotACrash() throws {
        let context = try ZMQContext()
        let req = try makeSocket(context, .req)
        // REQ must send before it receives: EFSM.
        #expect(throws: ZMQError.self) { _ = try req.receive(dontWait: true) }
        // A message needs at least one frame.
        #expect(throws: ZMQError.self) { try req.send([[UInt8]]()) }
        // Keys must be 40 characters of Z85; the error never shows the value.
        do {
            try req.set(.curveSecretKey("short-secret"))
            Issue.record("a short key was accepted")
        } catch let error as ZMQError {
            #expect(!error.description.contains("short-secret"))
        }
        // Out-of-range integer values.
        #expect(throws: ZMQError.self) { try req.set(.linger(milliseconds: Int.max)) }
        // Unbinding something never bound.
        #expect(throws: ZMQError.self) { try req.unbind("tcp://127.0.0.1:1") }
    }

    @Test func contextShutdownMakesOperationsFailWithETERM() throws {
        let context = try ZMQContext()
        let socket = try makeSocket(context, .pull)
        try socket.bind("inproc://shutdown-\(UInt64.random(in: 0...UInt64.max))")
        context.shutdown()
        context.shutdown()  // idempotent
        do {
            _ = try socket.receive()
            Issue.record("receive after shutdown succeeded")
        } catch let error as ZMQError {
            #expect(error.isContextTerminated)
        }
        socket.close()
    }

    @Test func optionsRoundTrip() throws {
        let context = try ZMQContext()
        let socket = try ZMQSocket(context, .dealer)
        #expect(try socket.lingerMilliseconds == ZMQSocket.defaultLingerMilliseconds)
        try socket.set(.linger(milliseconds: 250))
        #expect(try socket.lingerMilliseconds == 250)
        #expect(try socket.fileDescriptor >= 0)
        #expect(try socket.lastEndpoint == "")
        try socket.set([
            .sendHighWaterMark(10), .receiveHighWaterMark(10), .maxMessageSize(1 << 20),
            .routingID(bytes("id")), .immediate(true), .reconnectInterval(milliseconds: 100),
            .reconnectIntervalMax(milliseconds: 1000), .heartbeatInterval(milliseconds: 500),
            .heartbeatTTL(milliseconds: 1500), .heartbeatTimeout(milliseconds: 1500),
            .zapDomain("camsync"), .receiveTimeout(milliseconds: 10), .sendTimeout(milliseconds: 10),
            .tcpKeepalive(true), .tcpKeepaliveIdle(seconds: 2), .tcpKeepaliveInterval(seconds: 1), .tcpKeepaliveCount(2),
        ])
        let router = try ZMQSocket(context, .router)
        try router.set([.routerMandatory(true), .routerHandover(true)])
        let sub = try ZMQSocket(context, .sub)
        try sub.set([.subscribe(bytes("a")), .unsubscribe(bytes("a"))])
    }
}
