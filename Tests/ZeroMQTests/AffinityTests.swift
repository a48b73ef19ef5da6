import Testing
@testable import ZeroMQ

/// `SocketOption.affinity`: which of a context's I/O threads serve a socket's connections (the
/// coordinator keeps its command socket and its event socket on threads of their own).
@Suite struct AffinityTests {
    @Test("a ROUTER and a PUB pinned to different I/O threads of one context both carry messages over TCP")
    func pinnedSocketsCarryMessages() throws {
        let context = try ZMQContext(ioThreads: 2)
        let router = try makeSocket(context, .router), publisher = try makeSocket(context, .pub)
        let dealer = try makeSocket(context, .dealer), subscriber = try makeSocket(context, .sub)
        defer { for socket in [router, publisher, dealer, subscriber] { socket.close() } }
        try router.set(.affinity(0b01))
        try publisher.set(.affinity(0b10))
        try router.bind("tcp://127.0.0.1:*")
        try publisher.bind("tcp://127.0.0.1:*")
        try dealer.connect(try router.lastEndpoint)
        try subscriber.set(.subscribe(bytes("t")))
        try subscriber.connect(try publisher.lastEndpoint)

        _ = try dealer.send([bytes("ping")])
        let request = try #require(try router.receive())
        #expect(request.frames.last == bytes("ping"))
        // A subscription reaches the publisher asynchronously: publish until one arrives (bounded).
        let poller = Poller()
        poller.register(subscriber, for: .readable)
        var heard: [[UInt8]]?
        for _ in 0..<500 where heard == nil {
            _ = try publisher.send([bytes("t"), bytes("news")])
            if try !poller.poll(timeoutMs: 10).isEmpty { heard = try subscriber.receive(dontWait: true)?.frames }
        }
        #expect(heard == [bytes("t"), bytes("news")])
    }

    @Test("an affinity naming no I/O thread of the context reaches libzmq: binding fails")
    func affinityWithoutThread() throws {
        let context = try ZMQContext(ioThreads: 2)
        let router = try makeSocket(context, .router)
        defer { router.close() }
        try router.set(.affinity(0b100))
        #expect(throws: ZMQError.self) { try router.bind("tcp://127.0.0.1:*") }
    }

    @Test("its description shows the mask")
    func description() {
        #expect("\(SocketOption.affinity(0b10))" == "AFFINITY=0b10")
    }
}
