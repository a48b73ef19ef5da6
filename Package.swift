// swift-tools-version: 6.1
import PackageDescription

/// One settings array for every target: Swift 6 language mode, strict concurrency.
let swiftSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "camsync",
    // macOS 15: grpc-swift-2's availability floor (the etcd client).
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "camsync", targets: ["camsync"]),
        .executable(name: "camsync-display-agent", targets: ["camsync-display-agent"]),
        .library(name: "CamsyncPolicy", targets: ["CamsyncPolicy"]),
        .library(name: "ZeroMQ", targets: ["ZeroMQ"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-protobuf", from: "1.39.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift", from: "0.2.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/grpc/grpc-swift-2", from: "2.4.3"),
        .package(url: "https://github.com/grpc/grpc-swift-nio-transport", from: "2.9.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.81.0"),
        .package(url: "https://github.com/grpc/grpc-swift-protobuf", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-certificates", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-asn1", from: "1.7.4"),
    ],
    targets: [
        .systemLibrary(
            name: "CZMQ",
            path: "Sources/CZMQ",
            providers: [.apt(["libzmq3-dev"]), .brew(["zeromq"])]
        ),
        // zlib: the HA command log's turns are stored deflated (`Deflate`, docs/OPERATIONS.md).
        .systemLibrary(
            name: "CZlib",
            path: "Sources/CZlib",
            providers: [.apt(["zlib1g-dev"]), .brew(["zlib"])]
        ),
        .target(
            name: "ZeroMQ",
            dependencies: ["CZMQ"],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "CamsyncPolicy",
            swiftSettings: swiftSettings
        ),
        .target(
            name: "CamsyncWire",
            dependencies: [
                "CamsyncPolicy", "CZlib",
                .product(name: "SwiftProtobuf", package: "swift-protobuf"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(name: "CamsyncRuntime", swiftSettings: swiftSettings),
        // etcd's plain values, which the coordinator's core names without linking the client: a
        // member's address, the client's TLS files, a leadership won.
        .target(name: "CamsyncEtcdModel", swiftSettings: swiftSettings),
        // The etcd v3 client (generated gRPC stubs in Generated/, `make etcd-proto`) and its domain wrapper.
        .target(
            name: "CamsyncEtcd",
            dependencies: [
                "CamsyncEtcdModel",
                .product(name: "GRPCCore", package: "grpc-swift-2"),
                .product(name: "GRPCNIOTransportHTTP2", package: "grpc-swift-nio-transport"),
                .product(name: "GRPCProtobuf", package: "grpc-swift-protobuf"),
                .product(name: "SwiftProtobuf", package: "swift-protobuf"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        // The etcd path's certificates (a small CA, member and client certificates), made with
        // swift-certificates / swift-crypto: `cluster up` and `camsync keygen --etcd`.
        .target(
            name: "CamsyncPKI",
            dependencies: [
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ],
            swiftSettings: swiftSettings
        ),
        // The coordinator's pure core: its decisions, its turn's phases and the seam its worlds implement
        // (`CoordinatorWorld`); no sockets, no journal, no etcd client (package-check proves it).
        .target(
            name: "CamsyncCoordinatorCore",
            dependencies: [
                "CamsyncEtcdModel", "CamsyncPolicy", "CamsyncRuntime", "CamsyncWire",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        // The coordinator process's world: ZeroMQ, the journal (GRDB), etcd, the loop and its threads.
        .target(
            name: "CamsyncCoordinator",
            dependencies: [
                "ZeroMQ", "CamsyncCoordinatorCore", "CamsyncEtcdModel", "CamsyncRuntime", "CamsyncPolicy", "CamsyncWire", "CamsyncEtcd",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
            ],
            swiftSettings: swiftSettings
        ),
        // Node config files (YAML): what a node declares when it registers; read by the node, topologies and tools.
        .target(
            name: "CamsyncConfig",
            dependencies: ["CamsyncPolicy", .product(name: "Yams", package: "Yams")],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "CamsyncNode",
            dependencies: [
                "CamsyncRuntime", "CamsyncPolicy", "CamsyncWire", "CamsyncConfig", "CamsyncVerbs",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        // A node process's world (`NodeWorld` over ZeroMQ): its sockets, loop and metrics, for
        // `camsync node` and the fleet benchmark's shards. The session above stays free of I/O.
        .target(
            name: "CamsyncNodeProcess",
            dependencies: [
                "ZeroMQ", "CamsyncNode", "CamsyncRuntime", "CamsyncPolicy", "CamsyncWire",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "CamsyncClient",
            dependencies: ["CamsyncEtcdModel", "ZeroMQ", "CamsyncPolicy", "CamsyncWire", "CamsyncVerbs", "CamsyncEtcd"],
            swiftSettings: swiftSettings
        ),
        // The read-only HTTP side of a daemon: /metrics (swift-prometheus) and the live web view.
        .target(
            name: "CamsyncWeb",
            dependencies: ["CamsyncEtcdModel", 
                "ZeroMQ", "CamsyncPolicy", "CamsyncWire", "CamsyncClient", "CamsyncNode", "CamsyncVerbs", "CamsyncEtcd",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Metrics", package: "swift-metrics"),
            ],
            swiftSettings: swiftSettings
        ),
        // The verb table: readable action words → `Command`, shared by `ctl act`, the demo and scenario files;
        // and back (`Command.words`, `Event.words`): what `ctl watch`, the web view, node logs and reports print.
        .target(name: "CamsyncVerbs", dependencies: ["CamsyncPolicy"], swiftSettings: swiftSettings),
        // A whole cluster in one file (`Topology`) and its CURVE keys (`ClusterKeys`): read by
        // `camsync cluster`, `ctl -f`, `keygen`, the demo and the lab.
        .target(
            name: "CamsyncTopology",
            dependencies: ["CamsyncEtcdModel", 
                "CamsyncConfig", "CamsyncEtcd", "CamsyncPKI", "CamsyncWire", "ZeroMQ",
                .product(name: "Yams", package: "Yams"),
            ],
            swiftSettings: swiftSettings
        ),
        // Latency distributions (HdrHistogram) and their summaries: the benchmarks, the etcd round trip, the flood.
        .target(
            name: "CamsyncStats",
            dependencies: [.product(name: "Histogram", package: "hdrhistogram-swift")],
            swiftSettings: swiftSettings
        ),
        // The history checker: whether a recorded run (soak or simulation) is safe. Pure.
        .target(name: "CamsyncHistory", dependencies: ["CamsyncPolicy"], swiftSettings: swiftSettings),
        // What a soak run does, shared by the process soak and the simulator: the soak's cluster, its
        // seeded workload, and the assembly of a run's records into a `History`.
        .target(
            name: "CamsyncWorkload",
            dependencies: ["CamsyncCoordinatorCore", "CamsyncCoordinator", "CamsyncHistory", "CamsyncNode", "CamsyncPolicy", "CamsyncRuntime", "CamsyncWire"],
            swiftSettings: swiftSettings
        ),
        // The deterministic simulator (`camsync sim`): coordinators, nodes, etcd and the network in one
        // process on a simulated clock. No processes, no sockets.
        .target(
            name: "CamsyncSimulator",
            dependencies: ["CamsyncCoordinatorCore", "CamsyncEtcdModel", 
                "CamsyncConfig", "CamsyncCoordinator", "CamsyncEtcd", "CamsyncHistory", "CamsyncNode", "CamsyncPolicy",
                "CamsyncRuntime", "CamsyncTopology", "CamsyncWire", "CamsyncWorkload",
            ],
            swiftSettings: swiftSettings
        ),
        // The process lab: local clusters of real processes (`cluster up`), their run directories and
        // child processes, and local etcd clusters.
        .target(
            name: "CamsyncProcessLab",
            dependencies: ["CamsyncCoordinatorCore", "CamsyncEtcdModel", 
                "ZeroMQ", "CamsyncClient", "CamsyncConfig", "CamsyncCoordinator", "CamsyncEtcd", "CamsyncPKI", "CamsyncPolicy",
                "CamsyncRuntime", "CamsyncStats", "CamsyncTopology", "CamsyncWire",
            ],
            swiftSettings: swiftSettings
        ),
        // The benchmarks (`camsync bench`).
        .target(
            name: "CamsyncBench",
            dependencies: ["CamsyncCoordinatorCore", "CamsyncEtcdModel", 
                "ZeroMQ", "CamsyncConfig", "CamsyncCoordinator", "CamsyncEtcd", "CamsyncNode", "CamsyncNodeProcess", "CamsyncPolicy",
                "CamsyncProcessLab", "CamsyncRuntime", "CamsyncStats", "CamsyncTopology", "CamsyncWire",
            ],
            swiftSettings: swiftSettings
        ),
        // Hostile input: the corpus, the mutator, the seeded fuzzer's checks (`camsync fuzz`, Fuzz/) and the flood.
        .target(
            name: "CamsyncHostile",
            dependencies: ["CamsyncCoordinatorCore", 
                "ZeroMQ", "CamsyncClient", "CamsyncCoordinator", "CamsyncPolicy", "CamsyncProcessLab",
                "CamsyncRuntime", "CamsyncStats", "CamsyncTopology", "CamsyncWire",
            ],
            swiftSettings: swiftSettings
        ),
        // Scenario files (scenarios/) and their runner (`ctl scenario`).
        .target(
            name: "CamsyncScenario",
            dependencies: [
                "ZeroMQ", "CamsyncClient", "CamsyncConfig", "CamsyncPolicy", "CamsyncProcessLab", "CamsyncTopology",
                "CamsyncVerbs", "CamsyncWire", .product(name: "Yams", package: "Yams"),
            ],
            swiftSettings: swiftSettings
        ),
        // The process soak (`camsync soak`): a local cluster under the workload and injected faults, checked by CamsyncHistory.
        .target(
            name: "CamsyncSoakDriver",
            dependencies: ["CamsyncCoordinatorCore", 
                "ZeroMQ", "CamsyncClient", "CamsyncCoordinator", "CamsyncEtcd", "CamsyncHistory", "CamsyncNode", "CamsyncPolicy",
                "CamsyncProcessLab", "CamsyncRuntime", "CamsyncTopology", "CamsyncWire", "CamsyncWorkload",
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "camsync",
            dependencies: [
                "ZeroMQ", "CamsyncCoordinatorCore", "CamsyncEtcdModel", "CamsyncPolicy", "CamsyncConfig", "CamsyncWire", "CamsyncCoordinator", "CamsyncNode", "CamsyncNodeProcess",
                "CamsyncClient",
                "CamsyncVerbs", "CamsyncWeb", "CamsyncEtcd", "CamsyncPKI", "CamsyncTopology", "CamsyncProcessLab", "CamsyncBench",
                "CamsyncHostile", "CamsyncScenario", "CamsyncSimulator", "CamsyncSoakDriver", "CamsyncRuntime",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        // The display agent in C (agent/README.md): libzmq, protobuf-c and libyaml from Debian
        // (`make deps`); its protobuf-c code is generated into agent/generated (`make proto-c`).
        .executableTarget(
            name: "camsync-display-agent",
            path: "agent",
            exclude: ["fuzz", "tools", "tests", "README.md"],
            sources: ["src", "generated"],
            cSettings: [.headerSearchPath("generated"), .headerSearchPath("src"), .define("_GNU_SOURCE")],
            linkerSettings: [.linkedLibrary("zmq"), .linkedLibrary("protobuf-c"), .linkedLibrary("yaml")]
        ),
        // What the test targets share (test traits); it imports Testing, so only test targets use it.
        .target(name: "CamsyncTestSupport", path: "Tests/CamsyncTestSupport", swiftSettings: swiftSettings),
        // Test targets that spawn the `camsync` executable list it, so `swift test` builds it first.
        .testTarget(name: "ZeroMQTests", dependencies: ["CamsyncTestSupport", "ZeroMQ"], swiftSettings: swiftSettings),
        .testTarget(name: "CamsyncVerbsTests", dependencies: ["CamsyncVerbs", "CamsyncPolicy"], swiftSettings: swiftSettings),
        .testTarget(name: "CamsyncPolicyTests", dependencies: ["CamsyncPolicy", "CamsyncRuntime"], swiftSettings: swiftSettings),
        .testTarget(name: "CamsyncCoordinatorTests", dependencies: ["CamsyncCoordinatorCore", "CamsyncEtcdModel", "CamsyncTestSupport", "CamsyncCoordinator", "CamsyncEtcd", "CamsyncPolicy", "CamsyncWire", "CamsyncClient", "ZeroMQ", .product(name: "Logging", package: "swift-log"), .product(name: "GRDB", package: "GRDB.swift")], swiftSettings: swiftSettings),
        .testTarget(name: "CamsyncNodeTests", dependencies: ["CamsyncNodeProcess", "CamsyncCoordinatorCore", "CamsyncNode", "CamsyncPolicy", "CamsyncConfig", "CamsyncWire", "CamsyncCoordinator", "CamsyncRuntime"],
                    swiftSettings: swiftSettings),
        .testTarget(
            name: "IntegrationTests",
            dependencies: ["CamsyncCoordinatorCore", "CamsyncEtcdModel", "CamsyncTestSupport", "camsync", "CamsyncClient", "CamsyncPolicy", "CamsyncConfig", "CamsyncWire", "ZeroMQ",
                           "CamsyncCoordinator", "CamsyncEtcd", "CamsyncNode", "CamsyncTopology", "CamsyncProcessLab", "CamsyncBench",
                           "CamsyncHostile", "CamsyncSoakDriver", "CamsyncHistory"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "CamsyncScenarioTests",
            dependencies: ["CamsyncTestSupport", "CamsyncScenario", "CamsyncProcessLab", "camsync", "CamsyncPolicy", "ZeroMQ"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "CamsyncCLITests",
            dependencies: ["CamsyncCoordinatorCore", "CamsyncEtcdModel", "camsync", "CamsyncClient", "CamsyncCoordinator", "CamsyncEtcd", "CamsyncPolicy", "CamsyncWire", "ZeroMQ", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "CamsyncBenchTests",
            dependencies: ["CamsyncTestSupport", "CamsyncBench", "CamsyncProcessLab", "CamsyncStats", "camsync", "CamsyncPolicy", "CamsyncRuntime",
                           .product(name: "Histogram", package: "hdrhistogram-swift"),
                           .product(name: "ArgumentParser", package: "swift-argument-parser")],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "CamsyncWireTests",
            dependencies: ["CamsyncWire", "CamsyncPolicy", "CamsyncRuntime", .product(name: "SwiftProtobuf", package: "swift-protobuf")],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "CamsyncEtcdTests",
            dependencies: ["CamsyncCoordinatorCore", "CamsyncEtcdModel", "CamsyncTestSupport", "CamsyncEtcd", "CamsyncProcessLab", "CamsyncPKI", "CamsyncCoordinator", "CamsyncPolicy", "CamsyncWire"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "CamsyncSimTests",
            dependencies: ["CamsyncTestSupport", "CamsyncSimulator", "CamsyncWorkload", "CamsyncHistory", "CamsyncCoordinator", "CamsyncNode", "CamsyncPolicy", "CamsyncRuntime"],
            swiftSettings: swiftSettings
        ),
        .testTarget(name: "CamsyncHistoryTests", dependencies: ["CamsyncHistory", "CamsyncPolicy", "CamsyncNode"], swiftSettings: swiftSettings),
        .testTarget(
            name: "CamsyncHostileTests",
            dependencies: ["CamsyncTestSupport", "CamsyncHostile", "CamsyncProcessLab", "camsync", "CamsyncCoordinator", "CamsyncPolicy", "CamsyncWire",
                           "CamsyncRuntime"],
            swiftSettings: swiftSettings
        ),
    ],
    cLanguageStandard: .c11
)

// libFuzzer driver (`make fuzz`): only when CAMSYNC_FUZZ is set, so it never takes part in the
// normal `swift build` / `swift test`. Built with `-sanitize=fuzzer -parse-as-library`; libFuzzer
// supplies `main`.
if Context.environment["CAMSYNC_FUZZ"] != nil {
    package.targets.append(.executableTarget(
        name: "camsync-fuzz",
        dependencies: ["CamsyncHostile"],
        path: "Fuzz/camsync-fuzz",
        swiftSettings: swiftSettings
    ))
}
