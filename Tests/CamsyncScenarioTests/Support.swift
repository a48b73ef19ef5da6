import CamsyncCluster
import Foundation
import ZeroMQ

/// The repository's `scenarios/` folder.
let scenariosDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("scenarios").path

func scenarioFiles() -> [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: scenariosDirectory)) ?? [])
        .filter { $0.hasSuffix(".yaml") }.sorted()
}

/// The `camsync` binary built next to this test bundle.
func camsyncBinary() throws -> String {
    let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    let candidate = URL(fileURLWithPath: exe).deletingLastPathComponent().appendingPathComponent("camsync").path
    guard FileManager.default.isExecutableFile(atPath: candidate) else {
        throw ClusterWaitError(message: "camsync binary not found at \(candidate): run `swift build` first")
    }
    return candidate
}

/// Runs blocking work (sockets, processes) on its own thread, off Swift's two-thread cooperative pool.
func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        do {
            _ = try JoinableThread {
                continuation.resume(with: Result { try body() })
            }
        } catch {
            continuation.resume(throwing: error)
        }
    }
}
