import Foundation
import Testing
@testable import ZeroMQ

/// The transports round-trip tests run over.
enum Transport: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case inproc, ipc, tcp
    var testDescription: String { rawValue }
}

/// The bound endpoint for a test, cleaned up (ipc temp dir) on deinit.
final class TestEndpoints {
    private var directories: [String] = []
    private static let serial = Locked<Int>(0)

    /// Binds `socket` on a fresh endpoint of `transport` and returns the endpoint to connect to.
    func bind(_ socket: ZMQSocket, _ transport: Transport) throws -> String {
        switch transport {
        case .inproc:
            let n = Self.serial.withLock { value -> Int in value += 1; return value }
            let endpoint = "inproc://test-\(UUID().uuidString)-\(n)"
            try socket.bind(endpoint)
            return endpoint
        case .ipc:
            var template = Array((NSTemporaryDirectory() + "zmq-test-XXXXXX").utf8CString)
            guard let dir = mkdtemp(&template) else { throw ZMQError(code: errno, operation: "mkdtemp") }
            let path = String(cString: dir)
            directories.append(path)
            let endpoint = "ipc://\(path)/s.ipc"
            try socket.bind(endpoint)
            return endpoint
        case .tcp:
            try socket.bind("tcp://127.0.0.1:*")
            return try socket.lastEndpoint
        }
    }

    deinit {
        for dir in directories { try? FileManager.default.removeItem(atPath: dir) }
    }
}

/// A socket with LINGER 0 and a receive timeout, so no test can hang on a receive.
func makeSocket(_ context: ZMQContext, _ type: SocketType, receiveTimeoutMs: Int = 5000) throws -> ZMQSocket {
    let socket = try ZMQSocket(context, type)
    try socket.set([.linger(milliseconds: 0), .receiveTimeout(milliseconds: receiveTimeoutMs), .sendTimeout(milliseconds: 5000)])
    return socket
}

func bytes(_ string: String) -> [UInt8] { Array(string.utf8) }

/// Milliseconds elapsed while running `body`.
func measureMs<T>(_ body: () throws -> T) rethrows -> (T, Double) {
    let clock = ContinuousClock()
    let start = clock.now
    let result = try body()
    let elapsed = start.duration(to: clock.now)
    return (result, Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15)
}
