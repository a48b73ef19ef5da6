import CamsyncTestSupport
import Foundation
import Testing
@testable import ZeroMQ

@Suite(.ownThreads) struct PollerTests {
    @Test func nothingReadyReturnsEmptyAfterTimeoutThenOneReady() throws {
        let context = try ZMQContext()
        let name = "inproc://poller-\(UInt64.random(in: 0...UInt64.max))"
        let pullA = try makeSocket(context, .pull)
        let pullB = try makeSocket(context, .pull)
        let pullC = try makeSocket(context, .pull)
        try pullA.bind(name + "-a")
        try pullB.bind(name + "-b")
        try pullC.bind(name + "-c")
        let push = try makeSocket(context, .push)
        try push.connect(name + "-b")

        let poller = Poller()
        #expect(poller.register(pullA) == 0)
        #expect(poller.register(pullB) == 1)
        #expect(poller.register(pullC, for: .readable) == 2)

        let (none, ms) = try measureMs { try poller.poll(timeoutMs: 100) }
        #expect(none.isEmpty)
        #expect(ms >= 90)
        #expect(ms < 2000)

        #expect(try poller.poll(timeoutMs: 0).isEmpty)

        try push.send([bytes("wake")])
        let ready = try poller.poll(timeoutMs: 5000)
        #expect(ready.count == 1)
        #expect(ready.first?.index == 1)
        #expect(ready.first?.socket === pullB)
        #expect(ready.first?.events == .readable)
        #expect(try pullB.receive(dontWait: true)?.frames == [bytes("wake")])
        #expect(try pullA.receive(dontWait: true) == nil)
        #expect(try pullB.events.contains(.readable) == false)
    }

    @Test func writableAndUnregister() throws {
        let context = try ZMQContext()
        let name = "inproc://poller-w-\(UInt64.random(in: 0...UInt64.max))"
        let pull = try makeSocket(context, .pull)
        try pull.bind(name)
        let push = try makeSocket(context, .push)
        try push.connect(name)

        let poller = Poller()
        poller.register(pull)
        poller.register(push, for: [.readable, .writable])  // PUSH is never readable
        let ready = try poller.poll(timeoutMs: 1000)
        #expect(ready.map(\.index) == [1])
        #expect(ready.first?.events == .writable)

        poller.unregister(push)
        #expect(poller.count == 1)
        #expect(try poller.poll(timeoutMs: 0).isEmpty)
    }

    @Test func fileDescriptorItem() throws {
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        defer { close(fds[0]); close(fds[1]) }
        let poller = Poller()
        poller.register(fileDescriptor: fds[0])
        #expect(try poller.poll(timeoutMs: 0).isEmpty)
        var byte: UInt8 = 1
        #expect(write(fds[1], &byte, 1) == 1)
        let ready = try poller.poll(timeoutMs: 1000)
        #expect(ready.first?.fileDescriptor == fds[0])
        #expect(ready.first?.socket == nil)
    }
}
