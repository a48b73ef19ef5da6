import Dispatch
import Foundation
import ZeroMQ

/// Many real nodes in the benchmark's process, in shards (`NodeFleetShard`) served at once, one
/// thread each (a shard per core by default): in a deployment every node reacts on its own device,
/// so a fleet served by one thread would measure the benchmark's thread, not the protocol (a
/// failover moves every node at once; each needs a new DEALER, ≈ 0.1 ms in libzmq alone).
/// Node `i` lives in shard `i % shards`.
final class NodeFleet {
    private let shards: [NodeFleetShard]
    private(set) var count = 0

    /// An empty fleet; `add` starts nodes.
    init(context: ZMQContext, commandEndpoints: [String], eventEndpoints: [String], heartbeatMilliseconds: Int64,
         liveness: Int64 = 3, apps: Int = 3, shards: Int = ProcessInfo.processInfo.activeProcessorCount) {
        self.shards = (0..<max(1, shards)).map { _ in
            NodeFleetShard(context: context, commandEndpoints: commandEndpoints, eventEndpoints: eventEndpoints,
                           heartbeatMilliseconds: heartbeatMilliseconds, liveness: liveness, apps: apps)
        }
    }

    /// Starts `count` more nodes (`sim-NNNN`, numbered on from the last): each registers and asks
    /// for a snapshot, as `camsync node` does at start.
    func add(_ added: Int) throws {
        NodeFleetShard.allowOpenFiles((count + added) * 8 + 1024)
        let numbers = Array(count..<(count + added))
        for (index, shard) in shards.enumerated() {
            try shard.add(numbers.filter { $0 % shards.count == index })
        }
        count += added
    }

    /// Every node registered, synced and following `endpoint`.
    func allSynced(following endpoint: String) -> Bool { shards.allSatisfy { $0.allSynced(following: endpoint) } }

    /// Every node follows `endpoint`.
    func allFollow(_ endpoint: String) -> Bool { shards.allSatisfy { $0.allFollow(endpoint) } }

    /// The nodes following the coordinator at `endpoint`.
    func following(_ endpoint: String) -> Int { shards.map { $0.following[endpoint] ?? 0 }.reduce(0, +) }

    /// When (monotonic ns) each node first followed another coordinator than the one left (nil: not yet).
    var followedAt: [UInt64?] { shards.flatMap(\.followedAt) }

    /// Counted since `watch(leaving:)`.
    var registrations: Int { shards.map(\.registrations).reduce(0, +) }
    var snapshotRequests: Int { shards.map(\.snapshotRequests).reduce(0, +) }
    var reconnections: Int { shards.map(\.reconnections).reduce(0, +) }
    var replayRequests: Int { shards.map(\.replayRequests).reduce(0, +) }

    /// How far joining got (for a benchmark's error).
    var progress: String {
        let states = shards.map(\.joining)
        let followed = states.reduce(into: [String: Int]()) { all, state in all.merge(state.following, uniquingKeysWith: +) }
            .sorted { $0.key < $1.key }.map { "\($0.value) at \($0.key)" }.joined(separator: ", ")
        return "\(states.map(\.registered).reduce(0, +)) registered, \(states.map(\.synced).reduce(0, +)) synced, "
            + "following: \(followed); \(registrations) registrations, \(snapshotRequests) snapshot requests, "
            + "\(replayRequests) replay requests sent"
    }

    /// From now on (the coordinator at `endpoint` was just killed): note when each node moves to
    /// another one, and count registrations and snapshot requests from zero.
    func watch(leaving endpoint: String) throws {
        for shard in shards { shard.watch(leaving: endpoint) }
    }

    /// Serves every node for up to `milliseconds`, the shards at once (each on a thread of its own).
    func pump(milliseconds: Int) throws {
        let shards = self.shards
        let failures = Locked<[any Error]>([])
        DispatchQueue.concurrentPerform(iterations: shards.count) { index in
            do { try shards[index].pump(milliseconds: milliseconds) } catch { failures.withLock { $0.append(error) } }
        }
        if let failure = failures.withLock({ $0.first }) { throw failure }
    }

    func close() {
        for shard in shards { shard.close() }
    }
}
