import CamsyncTestSupport
import Testing
@testable import ZeroMQ

@Suite(.ownThreads) struct RoundTripTests {
    @Test(arguments: Transport.allCases)
    func routerDealer(_ transport: Transport) throws {
        let context = try ZMQContext()
        let endpoints = TestEndpoints()
        let router = try makeSocket(context, .router)
        try router.set(.routerMandatory(true))
        let endpoint = try endpoints.bind(router, transport)

        let dealer = try makeSocket(context, .dealer)
        try dealer.set(.routingID(bytes("dealer-1")))
        try dealer.connect(endpoint)

        #expect(try dealer.send([bytes("hello"), [], bytes("world")]))
        let request = try #require(try router.receive())
        #expect(request.frames == [bytes("dealer-1"), bytes("hello"), [], bytes("world")])
        #expect(request.userID == nil)
        if transport == .tcp {
            #expect(request.peerAddress == "127.0.0.1")
        }

        #expect(try router.send([request.frames[0], bytes("reply")]))
        let reply = try #require(try dealer.receive())
        #expect(reply.frames == [bytes("reply")])
        #expect(reply.string(at: 0) == "reply")

        // Single-frame API building a multipart message, and generic byte sequences.
        try dealer.send("part1".utf8, more: true)
        try dealer.send(bytes("part2")[...])
        let parts = try #require(try router.receive())
        #expect(parts.frames.dropFirst().map { String(decoding: $0, as: UTF8.self) } == ["part1", "part2"])

        // ROUTER_MANDATORY: an unknown peer is an error, not a silent drop.
        #expect(throws: ZMQError.self) { try router.send([bytes("nobody"), bytes("x")]) }
    }

    @Test(arguments: Transport.allCases)
    func pubSub(_ transport: Transport) throws {
        let context = try ZMQContext()
        let endpoints = TestEndpoints()
        let pub = try makeSocket(context, .pub)
        let endpoint = try endpoints.bind(pub, transport)

        let sub = try makeSocket(context, .sub, receiveTimeoutMs: 10)
        try sub.set(.subscribe(bytes("cams.")))
        try sub.connect(endpoint)

        // Slow joiner: publish until the subscription has reached the publisher and the first
        // message arrives, within a deadline (no blind sleep).
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: .seconds(5))
        var first: ZMQMessage?
        var sequence = 0
        while first == nil, clock.now < deadline {
            sequence += 1
            try pub.send([bytes("other.topic"), bytes("ignored")])
            try pub.send([bytes("cams.1"), bytes("\(sequence)")])
            first = try sub.receive()
        }
        let message = try #require(first)
        #expect(message.string(at: 0) == "cams.1")

        // Now connected: the next message arrives, and the unsubscribed topic never does.
        try sub.set(.receiveTimeout(milliseconds: 5000))
        try pub.send([bytes("other.topic"), bytes("ignored")])
        try pub.send([bytes("cams.2"), bytes("last")])
        var next = try #require(try sub.receive())
        while next.string(at: 0) == "cams.1" {  // drain copies published while joining
            next = try #require(try sub.receive())
        }
        #expect(next.frames == [bytes("cams.2"), bytes("last")])
        #expect(try sub.receive(dontWait: true) == nil)
    }

    /// A poll fetches the first part of a waiting multipart message; a disconnect before the rest
    /// is read made libzmq 4.3 abort the process (zeromq/libzmq#3663, as a standby switching
    /// leaders did). `disconnect` reads the waiting messages first and hands them back.
    @Test(arguments: [Transport.ipc, .tcp])
    func disconnectAfterAPollKeepsTheWaitingMessage(_ transport: Transport) throws {
        let context = try ZMQContext()
        let endpoints = TestEndpoints()
        let pub = try makeSocket(context, .pub)
        let endpoint = try endpoints.bind(pub, transport)
        let sub = try makeSocket(context, .sub)
        try sub.set(.subscribe(bytes("pulse")))
        try sub.connect(endpoint)
        let poller = Poller()
        poller.register(sub, for: .readable)
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: .seconds(5))
        var ready = false
        while !ready, clock.now < deadline {  // slow joiner: publish until one arrives
            try pub.send([bytes("pulse"), bytes("body")])
            ready = try !poller.poll(timeoutMs: 20).isEmpty
        }
        #expect(ready)

        let waiting = try sub.disconnect(endpoint)
        #expect(!waiting.isEmpty)
        #expect(waiting.allSatisfy { $0.frames == [bytes("pulse"), bytes("body")] })
        #expect(try sub.receive(dontWait: true) == nil)
    }

    @Test func nonBlockingReceiveOnEmptySocketReturnsNil() throws {
        let context = try ZMQContext()
        let pull = try makeSocket(context, .pull)
        try pull.bind("inproc://empty-\(UInt64.random(in: 0...UInt64.max))")
        #expect(try pull.receive(dontWait: true) == nil)
    }

    @Test func receiveTimeoutReturnsNil() throws {
        let context = try ZMQContext()
        let pull = try makeSocket(context, .pull, receiveTimeoutMs: 50)
        try pull.bind("inproc://timeout-\(UInt64.random(in: 0...UInt64.max))")
        let (message, ms) = try measureMs { try pull.receive() }
        #expect(message == nil)
        #expect(ms >= 40)
    }

    @Test func nonBlockingSendWithoutPeerReturnsFalse() throws {
        let context = try ZMQContext()
        let push = try makeSocket(context, .push)  // never connected: no pipe at all
        #expect(try push.send([bytes("x")], dontWait: true) == false)
        #expect(try push.send(bytes("x"), dontWait: true) == false)

        // IMMEDIATE: no queueing to a connection that is not complete (nobody listens here).
        let dealer = try makeSocket(context, .dealer)
        try dealer.set(.immediate(true))
        try dealer.connect("tcp://127.0.0.1:1")
        #expect(try dealer.send([bytes("x")], dontWait: true) == false)
    }
}
