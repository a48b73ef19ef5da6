import CamsyncRuntime
import Foundation
import ZeroMQ
#if canImport(Glibc)
import Glibc
#endif

/// What a fleet shard process tells the bench process (one text frame on a PUSH):
/// `status <shard> <joined> <batch copies> <their bytes> <heartbeats sent> <registrations> <base RSS kB>` every
/// 100 ms (counts since the shard started), and `applied <device> <sequence> <ns>` when both nodes of
/// a device's group (the device and its display) have applied its batches up to `sequence` (ns:
/// CLOCK_MONOTONIC, shared by the processes of one machine, when the later of the two did).
public enum FleetShardReport: Equatable, Sendable {
    case status(shard: Int, joined: Int, batchCopies: Int, batchBytes: Int, heartbeatsSent: Int, registrations: Int, baseRSSKilobytes: Int)
    case applied(device: Int, sequence: UInt64, at: UInt64)

    public init?(_ bytes: [UInt8]) {
        let parts = String(decoding: bytes, as: UTF8.self).split(separator: " ")
        switch parts.first {
        case "status":
            let numbers = parts.dropFirst().compactMap { Int($0) }
            guard parts.count == 8, numbers.count == 7 else { return nil }
            self = .status(shard: numbers[0], joined: numbers[1], batchCopies: numbers[2], batchBytes: numbers[3],
                           heartbeatsSent: numbers[4], registrations: numbers[5], baseRSSKilobytes: numbers[6])
        case "applied":
            guard parts.count == 4, let device = Int(parts[1]), let sequence = UInt64(parts[2]), let at = UInt64(parts[3]) else { return nil }
            self = .applied(device: device, sequence: sequence, at: at)
        default:
            return nil
        }
    }

    public var bytes: [UInt8] {
        switch self {
        case .status(let shard, let joined, let copies, let bytes, let heartbeats, let registrations, let base):
            Array("status \(shard) \(joined) \(copies) \(bytes) \(heartbeats) \(registrations) \(base)".utf8)
        case .applied(let device, let sequence, let at):
            Array("applied \(device) \(sequence) \(at)".utf8)
        }
    }
}

/// A fleet shard process (`camsync bench fleet-shard`, a child of `camsync bench fleet`): devices
/// `first ..< first + devices`, each with its display, as real node sessions (`NodeFleetShard`, one
/// thread), joining in waves; it reports to the bench process until that process is gone or stops it.
/// A process of its own because every node holds descriptors (two sockets, two connections): one
/// process cannot hold a large fleet under the per-process limit on open files.
public enum FleetShardProcess {
    /// Devices added at a time; the next wave starts once at most one wave is still joining.
    static let wave = 100

    public static func run(command: String, events: String, report: String, first: Int, devices: Int,
                           heartbeatMilliseconds: Int64, liveness: Int64, id: Int) throws -> Never {
        let nodes = 2 * devices
        NodeFleetShard.allowOpenFiles(4 * nodes + 256)
        // Two sockets a node, and as many again closed by reconnects and not reaped yet.
        let context = try ZMQContext(ioThreads: 1, maxSockets: 4 * nodes + 256)
        let push = try ZMQSocket(context, .push)
        try push.set([.linger(milliseconds: 1000), .sendHighWaterMark(1_000_000)])
        try push.connect(report)
        let shard = NodeFleetShard(context: context, commandEndpoints: [command], eventEndpoints: [events],
                                   heartbeatMilliseconds: heartbeatMilliseconds, liveness: liveness, apps: 3, displays: true)
        // Each group's position: what its device and its display applied, and what was reported.
        var applied = [(device: UInt64, display: UInt64, reported: UInt64)](repeating: (0, 0, 0), count: devices)
        shard.groupAdvanced = { number, isDisplay, sequence in
            let k = number - first
            guard applied.indices.contains(k) else { return }
            if isDisplay { applied[k].display = sequence } else { applied[k].device = sequence }
            let both = min(applied[k].device, applied[k].display)
            guard both > applied[k].reported else { return }
            applied[k].reported = both
            _ = try? push.send([FleetShardReport.applied(device: number, sequence: both, at: Clock.monotonicNanoseconds()).bytes],
                               dontWait: true)
        }
        let base = BenchSystem.procStatusKilobytes(pid: getpid(), field: "VmRSS") ?? 0
        let parent = getppid()
        var started = 0
        var nextStatus: UInt64 = 0
        while getppid() == parent {
            let joined = shard.joined
            if started < devices, joined >= 2 * max(0, started - wave) {
                let count = min(wave, devices - started)
                try shard.add(Array((first + started)..<(first + started + count)))
                started += count
            }
            try shard.pump(milliseconds: 20)
            let now = Clock.monotonicNanoseconds()
            if now >= nextStatus {
                nextStatus = now + 100_000_000
                _ = try push.send([FleetShardReport.status(shard: id, joined: joined, batchCopies: shard.batchCopies, batchBytes: shard.batchBytes,
                                                           heartbeatsSent: shard.heartbeatsSent, registrations: shard.registrations,
                                                           baseRSSKilobytes: base).bytes], dontWait: true)
            }
        }
        exit(0)
    }
}
