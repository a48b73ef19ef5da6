import CamsyncProcessLab
import Testing
import ZeroMQ

/// Several nodes' claim streams (`EtcdBackedTests.HighAvailabilityTests.ClaimStream`), one thread each, that can be
/// paused one node at a time (while that node restarts: a key rotation) and resumed. Stop them
/// all before reading the results; `deinit` stops them too.
final class ClaimStreams {
    let cluster: LocalCluster
    let streams: [EtcdBackedTests.HighAvailabilityTests.ClaimStream]
    private var running: [String: (stop: Locked<Bool>, worker: JoinableThread)] = [:]

    init(_ cluster: LocalCluster, nodes: [String] = EtcdBackedTests.HighAvailabilityTests.devices) throws {
        self.cluster = cluster
        streams = nodes.map(EtcdBackedTests.HighAvailabilityTests.ClaimStream.init)
        for node in nodes { try resume(node) }
    }

    deinit { stopAll() }

    /// Every claim acknowledged so far.
    var acked: Int { streams.map { $0.acks.withLock { $0.count } }.reduce(0, +) }

    /// Lets `node`'s stream finish the claim in flight and stop (no claim is cut off).
    func pause(_ node: String) {
        guard let (stop, worker) = running.removeValue(forKey: node) else { return }
        stop.withLock { $0 = true }
        worker.join()
    }

    func resume(_ node: String) throws {
        guard running[node] == nil, let stream = streams.first(where: { $0.node == node }) else { return }
        let stop = Locked(false)
        let cluster = cluster
        running[node] = (stop, try JoinableThread { stream.run(cluster, until: stop) })
    }

    func stopAll() {
        for node in Array(running.keys) { pause(node) }
    }

    /// Checks what the streams got against the log on etcd: every acknowledgement is its node's
    /// command, gap-free, no sequence acknowledged twice, and (`failuresAllowed` false) no claim failed.
    func expectNothingLost(failuresAllowed: Bool = false) async throws {
        let log = try await EtcdBackedTests.HighAvailabilityTests.etcdLog(cluster)
        #expect(log.map(\.sequence) == Array(1...UInt64(log.count)), "the log is gap-free")
        let bySequence = Dictionary(uniqueKeysWithValues: log.map { ($0.sequence, $0) })
        var all: [UInt64] = []
        for stream in streams {
            let acks = stream.acks.withLock { $0 }
            all += acks
            for sequence in acks { #expect(bySequence[sequence]?.node == stream.node, "ack \(sequence) to \(stream.node)") }
        }
        #expect(Set(all).count == all.count, "no sequence acknowledged twice")
        if !failuresAllowed {
            let failures = streams.flatMap { $0.failures.withLock { $0 } }
            #expect(failures.isEmpty, "no claim failed: \(failures.prefix(3))")
        }
    }
}
