import ArgumentParser
@testable import camsync
import CamsyncBench
import CamsyncPolicy
import Testing

@Suite struct CommandTests {
    @Test("`camsync bench` defaults to run with every benchmark")
    func defaults() throws {
        let command = try Camsync.parseAsRoot(["bench"])
        let run = try #require(command as? BenchRunCommand)
        #expect(!run.quick && !run.json)
        #expect(run.selected == BenchmarkName.allCases)
        #expect(run.nodes == 50 && run.subscribers == 500 && run.memoryNodes == 1000 && run.memoryApps == 10)
        #expect(run.settings(executable: "/bin/true", workDirectory: "/tmp/x").haCoordinators == 3)
    }

    @Test("ha-latency's coordinators: one (no standbys) up to five")
    func haCoordinators() throws {
        let run = try #require(try Camsync.parseAsRoot(["bench", "ha-latency", "--ha-coordinators", "1"]) as? BenchRunCommand)
        #expect(run.settings(executable: "/bin/true", workDirectory: "/tmp/x").haCoordinators == 1)
        for bad in ["0", "6"] {
            #expect(throws: (any Error).self) { try Camsync.parseAsRoot(["bench", "--ha-coordinators", bad]) }
        }
    }

    @Test("benchmarks and options after `bench`, without naming `run`")
    func selection() throws {
        let command = try Camsync.parseAsRoot(["bench", "--quick", "latency", "fanout", "--subscribers", "40", "--json",
                                               "--coordinator-prefix", "valgrind --tool=callgrind"])
        let run = try #require(command as? BenchRunCommand)
        #expect(run.quick && run.json)
        #expect(run.selected == [.latency, .fanout])
        #expect(run.subscribers == 40)
        let settings = run.settings(executable: "/bin/true", workDirectory: "/tmp/x")
        #expect(settings.coordinatorPrefix == ["valgrind", "--tool=callgrind"])
        #expect(settings.quick && settings.recoveryCommands == 20_000)
        #expect(settings.pick(1, quick: 2) == 2)
    }

    @Test("unknown benchmarks and bad sizes are refused")
    func refused() {
        #expect(throws: (any Error).self) { try Camsync.parseAsRoot(["bench", "latncy"]) }
        #expect(throws: (any Error).self) { try Camsync.parseAsRoot(["bench", "--nodes", "0"]) }
        #expect(throws: (any Error).self) { try Camsync.parseAsRoot(["bench", "--recovery-commands", "10"]) }
    }

    @Test("the hidden helper subcommands parse")
    func helpers() throws {
        let echo = try #require(try Camsync.parseAsRoot(["bench", "echo", "--bind", "tcp://127.0.0.1:1"]) as? BenchEchoCommand)
        #expect(echo.bind == "tcp://127.0.0.1:1")
        let subs = try #require(try Camsync.parseAsRoot(["bench", "subscribers", "--events", "e", "--report", "r",
                                                         "--count", "125", "--id", "3"]) as? BenchSubscribersCommand)
        #expect(subs.count == 125 && subs.id == 3)
        let shard = try #require(try Camsync.parseAsRoot(["bench", "fleet-shard", "--command", "c", "--events", "e", "--report", "r",
                                                          "--first", "1000", "--devices", "1000", "--id", "1"]) as? BenchFleetShardCommand)
        #expect(shard.first == 1000 && shard.devices == 1000 && shard.heartbeatMs == 500 && shard.liveness == 3)
    }

    @Test("fleet: the largest fleet's nodes, 10,000 unless told, at least a device and its display")
    func fleetNodes() throws {
        let run = try #require(try Camsync.parseAsRoot(["bench", "fleet", "--fleet-nodes", "7000"]) as? BenchRunCommand)
        #expect(run.selected == [.fleet])
        #expect(run.settings(executable: "/bin/true", workDirectory: "/tmp/x").fleetNodes == 7000)
        #expect(try #require(try Camsync.parseAsRoot(["bench"]) as? BenchRunCommand).fleetNodes == 10_000)
        #expect(throws: (any Error).self) { try Camsync.parseAsRoot(["bench", "--fleet-nodes", "1"]) }
    }

    @Test("the benchmarks that start an etcd of their own, and only those, are skipped without one",
          arguments: BenchmarkName.allCases)
    func needsEtcd(_ name: BenchmarkName) {
        #expect(name.needsEtcd == (name.rawValue.hasPrefix("ha-") || name == .fleetFailover))
    }

    @Test("fleet shard reports round-trip; garbage is ignored")
    func fleetReports() {
        for report in [FleetShardReport.status(shard: 2, joined: 1998, batchCopies: 40, batchBytes: 7640, heartbeatsSent: 9000,
                                               registrations: 2000, baseRSSKilobytes: 31000),
                       .applied(device: 1234, sequence: 99, at: 123_456_789),
                       .following(shard: 1, snapshotRequests: 2000, reconnections: 7, lastMovedAt: 987_654_321,
                                  nodes: ["tcp://127.0.0.1:4001": 1500, "tcp://127.0.0.1:4003": 500]),
                       .following(shard: 0, snapshotRequests: 0, reconnections: 0, lastMovedAt: 0, nodes: [:]),
                       .arrivals(shard: 3, buckets: [17_712_345: 42, 17_712_346: 0, 17_712_350: 7])] {
            #expect(FleetShardReport(report.bytes) == report)
        }
        #expect(FleetShardReport(Array("status 1 2 3".utf8)) == nil)
        #expect(FleetShardReport(Array("applied x 1 2".utf8)) == nil)
        #expect(FleetShardReport(Array("following 1 2 3 tcp://127.0.0.1:4001".utf8)) == nil, "an endpoint without its count")
        #expect(FleetShardReport(Array("following 1 2 3 tcp://127.0.0.1:4001 x".utf8)) == nil)
        #expect(FleetShardReport(Array("arrivals 3 17712345".utf8)) == nil, "a bucket without its count")
        #expect(FleetShardReport(Array("hello".utf8)) == nil)
    }

    @Test("subscriber reports round-trip; garbage is ignored")
    func reports() {
        let report = SubscriberReport(kind: .batch, process: 2, sequence: 77, first: 10, last: 20)
        #expect(SubscriberReport(report.bytes) == report)
        #expect(SubscriberReport(SubscriberReport(kind: .ready, process: 1).bytes)?.kind == .ready)
        #expect(SubscriberReport(Array("batch 1 x".utf8)) == nil)
        #expect(SubscriberReport(Array("hello".utf8)) == nil)
    }

    @Test("simulated nodes: ids, registration and claim commands")
    func simulated() {
        #expect(SimulatedNode.id(7) == "sim-0007")
        #expect(SimulatedNode.id(12345) == "sim-12345")
        let registration = SimulatedNode.registration("sim-0001", apps: 10)
        guard case .device(let device) = registration.attributes else { Issue.record("not a device"); return }
        #expect(device.apps.count == 10 && device.cameras.count == 2)
        #expect(SimulatedNode.claim("sim-0001").count == 3)
        #expect(SimulatedNode.start("sim-0001") == .startSession(AppID(device: "sim-0001", bundleID: "com.bench.app0")))
        #expect(SimulatedNode.displayID(7) == "simd-0007" && SimulatedNode.displayID(12345) == "simd-12345")
        guard case .display(let display) = SimulatedNode.displayRegistration("simd-0007", attachedTo: "sim-0007").attributes else {
            Issue.record("not a display")
            return
        }
        #expect(display.attachedTo == NodeID("sim-0007"))
    }
}
