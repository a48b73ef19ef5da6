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
/// CLOCK_MONOTONIC, shared by the processes of one machine, when the later of the two did); with
/// the status, `following <shard> <snapshot requests> <reconnections> <ns> (<command endpoint> <nodes>)…`:
/// how many of its nodes follow each coordinator, the snapshot requests they sent and the connections
/// they reopened since the start, and when one last moved to another coordinator (ns as above, 0: never);
/// before the status, `arrivals <shard> (<bucket> <count>)…`: the leader's heartbeats and bookmarks its
/// nodes received in each 100 ms bucket closed since the last (`ArrivalSpread`), when there were any.
public enum FleetShardReport: Equatable, Sendable {
    case status(shard: Int, joined: Int, batchCopies: Int, batchBytes: Int, heartbeatsSent: Int, registrations: Int, baseRSSKilobytes: Int)
    case applied(device: Int, sequence: UInt64, at: UInt64)
    case following(shard: Int, snapshotRequests: Int, reconnections: Int, lastMovedAt: UInt64, nodes: [String: Int])
    case arrivals(shard: Int, buckets: [Int64: Int])

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
        case "following":
            guard parts.count >= 5, parts.count % 2 == 1, let shard = Int(parts[1]), let snapshots = Int(parts[2]),
                  let reconnections = Int(parts[3]), let at = UInt64(parts[4]) else { return nil }
            var nodes: [String: Int] = [:]
            for k in stride(from: 5, to: parts.count, by: 2) {
                guard let count = Int(parts[k + 1]) else { return nil }
                nodes[String(parts[k])] = count
            }
            self = .following(shard: shard, snapshotRequests: snapshots, reconnections: reconnections, lastMovedAt: at, nodes: nodes)
        case "arrivals":
            guard parts.count >= 2, parts.count % 2 == 0, let shard = Int(parts[1]) else { return nil }
            var buckets: [Int64: Int] = [:]
            for k in stride(from: 2, to: parts.count, by: 2) {
                guard let bucket = Int64(parts[k]), let count = Int(parts[k + 1]) else { return nil }
                buckets[bucket] = count
            }
            self = .arrivals(shard: shard, buckets: buckets)
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
        case .following(let shard, let snapshots, let reconnections, let at, let nodes):
            Array((["following \(shard) \(snapshots) \(reconnections) \(at)"] + nodes.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" })
                .joined(separator: " ").utf8)
        case .arrivals(let shard, let buckets):
            Array((["arrivals \(shard)"] + buckets.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }).joined(separator: " ").utf8)
        }
    }
}

/// A fleet shard process (`camsync bench fleet-shard`, a child of `camsync bench fleet`): devices
/// `first ..< first + devices`, each with its display, as real node sessions (`NodeFleetShard`, one
/// thread), joining in waves; it reports to the bench process until that process is gone or stops it.
/// `command` and `events` may each list several coordinators (comma-separated, as `camsync node`
/// takes them): the nodes then follow the leader among them.
/// A process of its own because every node holds descriptors (two sockets, two connections): one
/// process cannot hold a large fleet under the per-process limit on open files.
public enum FleetShardProcess {
    /// Devices added at a time; the next wave starts once at most one wave is still joining.
    static let wave = 100

    public static func run(command: String, events: String, report: String, first: Int, devices: Int,
                           heartbeatMilliseconds: Int64, liveness: Int64, id: Int, niceness: Int32 = 0,
                           curve: (coordinatorKey: String, salt: UInt64)? = nil) throws -> Never {
        if niceness != 0 { _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, niceness) }
        let nodes = 2 * devices
        // A node's socket to each coordinator (each with libzmq's mailbox and its connection); and
        // the sockets closed by reconnects, not reaped yet.
        let coordinators = command.split(separator: ",").count
        NodeFleetShard.allowOpenFiles((6 + coordinators) * nodes + 256)
        // A socket a node per coordinator, and as many again closed by reconnects and not reaped yet.
        let context = try ZMQContext(ioThreads: 1, maxSockets: 4 * nodes + 256)
        let push = try ZMQSocket(context, .push)
        try push.set([.linger(milliseconds: 1000), .sendHighWaterMark(1_000_000)])
        try push.connect(report)
        let shard = NodeFleetShard(context: context, commandEndpoints: [command], eventEndpoints: [events],
                                   heartbeatMilliseconds: heartbeatMilliseconds, liveness: liveness, apps: 3, displays: true,
                                   curve: curve)
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
        var nextStall = Clock.monotonicNanoseconds() + 10_000_000_000
        while getppid() == parent {
            let joined = shard.joined
            if started < devices, joined >= 2 * max(0, started - wave) {
                let count = min(wave, devices - started)
                try shard.add(Array((first + started)..<(first + started + count)))
                started += count
            }
            try shard.pump(milliseconds: 20)
            let now = Clock.monotonicNanoseconds()
            if now >= nextStall {
                // Every 10 s while some node has not joined: which ones, and where each stands.
                nextStall = now + 10_000_000_000
                let waiting = shard.unjoined(limit: 5)
                if !waiting.isEmpty {
                    let text = "not joined yet (\(shard.count - shard.joined) of \(shard.count)):\n  " + waiting.joined(separator: "\n  ") + "\n"
                    FileHandle.standardOutput.write(Data(text.utf8))
                }
            }
            if now >= nextStatus {
                nextStatus = now + 100_000_000
                let arrivals = shard.takeArrivals(before: ArrivalSpread.bucket(milliseconds: Int64(now / 1_000_000)))
                if !arrivals.isEmpty { _ = try push.send([FleetShardReport.arrivals(shard: id, buckets: arrivals).bytes], dontWait: true) }
                _ = try push.send([FleetShardReport.status(shard: id, joined: joined, batchCopies: shard.batchCopies, batchBytes: shard.batchBytes,
                                                           heartbeatsSent: shard.heartbeatsSent, registrations: shard.registrations,
                                                           baseRSSKilobytes: base).bytes], dontWait: true)
                _ = try push.send([FleetShardReport.following(shard: id, snapshotRequests: shard.snapshotRequests,
                                                              reconnections: shard.reconnections, lastMovedAt: shard.lastMovedAt,
                                                              nodes: shard.following.filter { $0.value > 0 }).bytes], dontWait: true)
            }
        }
        exit(0)
    }
}
