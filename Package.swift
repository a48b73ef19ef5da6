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
        .package(url: "https://github.com/grpc/grpc-swift-2", from: "2.4.3"),
        .package(url: "https://github.com/grpc/grpc-swift-nio-transport", from: "2.9.2"),
        .package(url: "https://github.com/grpc/grpc-swift-protobuf", from: "2.4.1"),
    ],
    targets: [
        .systemLibrary(
            name: "CZMQ",
            path: "Sources/CZMQ",
            providers: [.apt(["libzmq3-dev"]), .brew(["zeromq"])]
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
                "CamsyncPolicy",
                .product(name: "SwiftProtobuf", package: "swift-protobuf"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(name: "CamsyncRuntime", swiftSettings: swiftSettings),
        // The etcd v3 client (generated gRPC stubs in Generated/, `make etcd-proto`) and its domain wrapper.
        .target(
            name: "CamsyncEtcd",
            dependencies: [
                .product(name: "GRPCCore", package: "grpc-swift-2"),
                .product(name: "GRPCNIOTransportHTTP2", package: "grpc-swift-nio-transport"),
                .product(name: "GRPCProtobuf", package: "grpc-swift-protobuf"),
                .product(name: "SwiftProtobuf", package: "swift-protobuf"),
            ],
            swiftSettings: swiftSettings
        ),
        // A local etcd cluster of Debian's `etcd` binary on loopback, for tests and benchmarks.
        .target(
            name: "CamsyncEtcdCluster",
            dependencies: ["CamsyncEtcd", "CamsyncCluster"],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "CamsyncCoordinator",
            dependencies: [
                "ZeroMQ", "CamsyncRuntime", "CamsyncPolicy", "CamsyncWire",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "CamsyncNode",
            dependencies: [
                "ZeroMQ", "CamsyncRuntime", "CamsyncPolicy", "CamsyncWire",
                .product(name: "Yams", package: "Yams"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "CamsyncClient",
            dependencies: ["ZeroMQ", "CamsyncPolicy", "CamsyncWire"],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "CamsyncCluster",
            dependencies: [
                "ZeroMQ", "CamsyncPolicy", "CamsyncWire", "CamsyncClient", "CamsyncNode",
                .product(name: "Yams", package: "Yams"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(name: "CamsyncSoak", dependencies: ["CamsyncPolicy"], swiftSettings: swiftSettings),
        .target(
            name: "CamsyncHostile",
            dependencies: [
                "CamsyncPolicy", "CamsyncWire", "CamsyncCoordinator", "CamsyncClient", "CamsyncCluster", "CamsyncNode",
                "CamsyncRuntime", "ZeroMQ",
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "CamsyncScenario",
            dependencies: [
                "CamsyncPolicy", "CamsyncWire", "CamsyncClient", "CamsyncCluster", "ZeroMQ",
                .product(name: "Yams", package: "Yams"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "CamsyncSoakDriver",
            dependencies: ["CamsyncSoak", "CamsyncCluster", "CamsyncClient", "CamsyncCoordinator", "CamsyncNode",
                           "CamsyncWire", "CamsyncPolicy", "CamsyncRuntime", "ZeroMQ"],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "CamsyncBench",
            dependencies: [
                "ZeroMQ", "CamsyncPolicy", "CamsyncWire", "CamsyncClient", "CamsyncCluster", "CamsyncNode", "CamsyncRuntime",
                .product(name: "Histogram", package: "hdrhistogram-swift"),
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "camsync",
            dependencies: [
                "ZeroMQ", "CamsyncPolicy", "CamsyncWire", "CamsyncCoordinator", "CamsyncNode", "CamsyncClient", "CamsyncRuntime", "CamsyncCluster", "CamsyncScenario", "CamsyncSoakDriver", "CamsyncSoak",
                "CamsyncBench", .product(name: "Histogram", package: "hdrhistogram-swift"), "CamsyncHostile",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(name: "ZeroMQTests", dependencies: ["ZeroMQ"], swiftSettings: swiftSettings),
        .testTarget(name: "CamsyncPolicyTests", dependencies: ["CamsyncPolicy"], swiftSettings: swiftSettings),
        .testTarget(name: "CamsyncCoordinatorTests", dependencies: ["CamsyncCoordinator", "CamsyncPolicy", "CamsyncWire", "CamsyncClient", "ZeroMQ", .product(name: "Logging", package: "swift-log")], swiftSettings: swiftSettings),
        .testTarget(name: "CamsyncNodeTests", dependencies: ["CamsyncNode", "CamsyncPolicy"], swiftSettings: swiftSettings),
        .testTarget(
            name: "IntegrationTests",
            dependencies: ["camsync", "CamsyncCluster", "CamsyncClient", "CamsyncPolicy", "CamsyncWire", "ZeroMQ", "CamsyncSoak", "CamsyncSoakDriver"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "CamsyncScenarioTests",
            dependencies: ["camsync", "CamsyncScenario", "CamsyncPolicy", "CamsyncCluster"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "CamsyncCLITests",
            dependencies: ["camsync", "CamsyncClient", "CamsyncPolicy", "CamsyncScenario", "ZeroMQ"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "CamsyncBenchTests",
            dependencies: ["CamsyncBench", "camsync", .product(name: "Histogram", package: "hdrhistogram-swift")],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "CamsyncWireTests",
            dependencies: ["CamsyncWire", "CamsyncPolicy", .product(name: "SwiftProtobuf", package: "swift-protobuf")],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "CamsyncEtcdTests",
            dependencies: ["CamsyncEtcd", "CamsyncEtcdCluster"],
            swiftSettings: swiftSettings
        ),
        .testTarget(name: "CamsyncSoakTests", dependencies: ["CamsyncSoak", "CamsyncPolicy"], swiftSettings: swiftSettings),
        .testTarget(
            name: "CamsyncHostileTests",
            dependencies: ["camsync", "CamsyncHostile", "CamsyncCoordinator", "CamsyncCluster", "CamsyncPolicy", "CamsyncWire", "CamsyncRuntime"],
            swiftSettings: swiftSettings
        ),
    ]
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
