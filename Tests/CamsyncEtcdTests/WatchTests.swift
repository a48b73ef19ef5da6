import CamsyncEtcd
import CamsyncProcessLab
import Testing

extension LiveEtcdTests {
    @Suite struct WatchTests {
        @Test func deliversPutsInOrderFromAGivenRevision() async throws {
            try await withEtcdCluster { _, client in
                var revisions: [Int64] = []
                for index in 1...5 {
                    revisions.append(try await client.put("camsync/test/w/\(index)", Array("\(index)")))
                }
                try await client.put("camsync/other", [0])  // outside the prefix
                let received = EventLog()
                let from = revisions[1]
                let watch = Task {
                    try await client.watch(prefix: "camsync/test/w/", from: from) { events in
                        await received.append(events)
                        return true
                    }
                }
                defer { watch.cancel() }
                try await client.put("camsync/test/w/6", Array("6"))
                try await waitUntil("5 events") { await received.count >= 5 }
                let events = await received.events
                #expect(events.map(\.keyValue.key) == (2...6).map { "camsync/test/w/\($0)" })
                #expect(events.map(\.kind) == Array(repeating: .put, count: 5))
                #expect(events.map(\.revision) == events.map(\.revision).sorted())
                #expect(events.first?.revision == from)
            }
        }

        @Test func resumesOnAnotherMemberWithoutGapsOrRepeats() async throws {
            try await withEtcdCluster { cluster, client in
                let start = try await client.put("camsync/test/r/0", [0])
                let received = EventLog()
                let watch = Task {
                    try await client.watch(prefix: "camsync/test/r/", from: start) { events in
                        await received.append(events)
                        return await received.count < 7
                    }
                }
                defer { watch.cancel() }
                for index in 1...3 { try await client.put("camsync/test/r/\(index)", [UInt8(index)]) }
                try await waitUntil("4 events") { await received.count == 4 }
                let used = try #require(cluster.members.firstIndex { $0.endpoint == client.currentEndpoint })
                cluster.kill(used)
                for index in 4...6 {
                    try await eventually { try await client.put("camsync/test/r/\(index)", [UInt8(index)]) }
                }
                try await value(of: watch)
                #expect(await received.events.map(\.keyValue.value) == (0...6).map { [UInt8($0)] })
            }
        }

        @Test func compactedHistoryIsAClearError() async throws {
            try await withEtcdCluster { _, client in
                let old = try await client.put("camsync/test/c", [1])
                let now = try await client.put("camsync/test/c", [2])
                try await client.compact(to: now)
                do {
                    try await value(of: Task { try await client.watch(prefix: "camsync/test/c", from: old) { _ in false } })
                    Issue.record("a watch from a compacted revision must fail")
                } catch let error as EtcdError {
                    #expect(error.code == .compacted)
                    #expect(error.compactRevision == now)
                }
                let read = await etcdErrorCode { _ = try await client.range(prefix: "camsync/test/", revision: old) }
                #expect(read == .compacted)
                #expect(try await client.range(prefix: "camsync/test/", revision: now).keyValues.map(\.value) == [[2]])
            }
        }
    }
}

actor EventLog {
    var events: [EtcdWatchEvent] = []
    var count: Int { events.count }
    func append(_ batch: [EtcdWatchEvent]) { events += batch }
}
