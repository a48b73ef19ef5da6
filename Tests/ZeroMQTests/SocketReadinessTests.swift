import CamsyncTestSupport
import Foundation
import Testing
@testable import ZeroMQ

#if os(Linux)
@Suite(.ownThreads) struct SocketReadinessTests {
    @Test("a socket that receives is reported by its key, among many watched; read to the end, it is reported again at the next arrival")
    func reportsTheSocketThatReceived() throws {
        let context = try ZMQContext()
        let name = "inproc://readiness-\(UInt64.random(in: 0...UInt64.max))"
        let pulls = try (0..<50).map { k in
            let pull = try makeSocket(context, .pull)
            try pull.bind("\(name)-\(k)")
            return pull
        }
        let readiness = SocketReadiness()
        for (k, pull) in pulls.enumerated() { try readiness.watch(pull, key: 100 + k) }
        let push = try makeSocket(context, .push)
        try push.connect("\(name)-37")

        for round in 1...2 {
            try push.send([bytes("wake \(round)")])
            var keys: [Int] = []
            let deadline = Date().addingTimeInterval(5)
            // The descriptor says "may have changed": a key may come with nothing to read (libzmq's
            // own commands); the message's socket is reported within the bound.
            while !keys.contains(137), Date() < deadline { keys += readiness.wait(timeoutMilliseconds: 100) }
            #expect(keys.contains(137), "round \(round)")
            #expect(Set(keys).isSubset(of: Set(100..<150)))
            #expect(try pulls[37].receive(dontWait: true)?.frames == [bytes("wake \(round)")])
            #expect(try pulls[37].receive(dontWait: true) == nil)
        }
    }
}
#endif
