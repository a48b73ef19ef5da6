import CamsyncTestSupport
import Testing
@testable import ZeroMQ

@Suite(.ownThreads) struct ThreadOwnershipTests {
    /// A socket created here is handed over (`sending`) to a dedicated thread that owns it
    /// from then on; the two threads talk only through the sockets.
    @Test func echoServerOnItsOwnThread() throws {
        let context = try ZMQContext()
        let rep = try makeSocket(context, .rep, receiveTimeoutMs: 5000)
        let endpoint = "inproc://echo-\(UInt64.random(in: 0...UInt64.max))"
        try rep.bind(endpoint)
        let server = try JoinableThread {
            // Echo until the "stop" message or a receive timeout.
            while let request = try? rep.receive() {
                _ = try? rep.send(request.frames)
                if request.frames == [Array("stop".utf8)] { break }
            }
            rep.close()
        }
        defer { server.join() }

        let req = try makeSocket(context, .req)
        try req.connect(endpoint)
        for i in 0..<100 {
            try req.send([bytes("ping"), bytes("\(i)")])
            #expect(try req.receive()?.frames == [bytes("ping"), bytes("\(i)")])
        }
        try req.send([bytes("stop")])
        #expect(try req.receive()?.frames == [bytes("stop")])
    }
}
