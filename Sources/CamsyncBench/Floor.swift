import CamsyncProcessLab
public import CamsyncStats
import CamsyncRuntime
import CamsyncWire
import Foundation
import ZeroMQ
#if canImport(Glibc)
import Glibc
#endif

/// The floor every figure is compared with: a raw DEALER → ROUTER → DEALER round trip of the
/// same message size between two processes over the same transport (loopback TCP), measured
/// in the same run. The echo side is `camsync bench echo`, a child process.
public enum Floor {
    /// The echo server's loop (runs in the child): a ROUTER that sends every message back.
    public static func runEcho(bind endpoint: String) throws -> Never {
        let context = try ZMQContext(ioThreads: 1)
        let router = try ZMQSocket(context, .router)
        try router.set([.linger(milliseconds: 0), .sendHighWaterMark(100_000), .receiveHighWaterMark(100_000)])
        try router.set(.receiveTimeout(milliseconds: 1000))
        try router.bind(endpoint)
        let parent = getppid()
        while true {
            guard let message = try router.receive() else {
                if getppid() != parent { exit(0) }
                continue
            }
            _ = try router.send(message.frames, dontWait: true)
        }
    }

    /// The floor of a node's request (`throughput`, `scale`): the echo of a `start_session` envelope's
    /// size, 3,000 round trips (500 quick), and its row.
    static func requestEcho(_ settings: BenchSettings, directory name: String) throws -> (summary: LatencySummary, row: BenchRow) {
        let size = Envelope.request(SimulatedNode.start(SimulatedNode.id(0)), sender: SimulatedNode.id(0),
                                    requestID: 1 << 40).serializedBytes().count
        let floor = try measure(executable: settings.executable, directory: try settings.directory(name),
                                size: size, count: settings.pick(3000, quick: 500), warmup: 200)
        return (floor, BenchRow(benchmark: "floor", scenario: "raw DEALER/ROUTER echo, \(size) B, 2 processes",
                                latency: floor, floorP50: floor.p50))
    }

    /// Starts `camsync bench echo`, measures `count` round trips of `size` bytes after `warmup`, stops it.
    public static func measure(executable: String, directory: String, size: Int, count: Int, warmup: Int) throws -> LatencySummary {
        let endpoint = BenchSystem.loopbackEndpoint()
        let echo = try ManagedProcess(name: "echo", executable: executable, arguments: ["bench", "echo", "--bind", endpoint],
                                      logPath: directory + "/echo-\(size).log")
        ChildProcesses.register(echo.pid)
        defer { echo.stop(grace: 1); ChildProcesses.unregister(echo.pid) }
        let context = try ZMQContext(ioThreads: 1)
        let dealer = try ZMQSocket(context, .dealer)
        defer { dealer.close() }
        try dealer.set([.linger(milliseconds: 0), .reconnectInterval(milliseconds: 5), .receiveTimeout(milliseconds: 200)])
        try dealer.connect(endpoint)
        let payload = [UInt8](repeating: 0x5a, count: max(1, size))
        // Until the child answers.
        var answered = false
        for _ in 0..<100 where !answered {
            _ = try dealer.send([payload])
            answered = try dealer.receive() != nil
        }
        guard answered else { throw BenchError("echo process did not answer: \(echo.logTail(5))") }
        while try dealer.receive(dontWait: true) != nil {}
        try dealer.set(.receiveTimeout(milliseconds: 5000))
        var recorder = LatencyRecorder()
        for i in 0..<(warmup + count) {
            let start = Clock.monotonicNanoseconds()
            _ = try dealer.send([payload])
            guard try dealer.receive() != nil else { throw BenchError("echo round trip timed out") }
            if i >= warmup { recorder.record(from: start, to: Clock.monotonicNanoseconds()) }
        }
        return recorder.summary
    }
}
