import CamsyncProcessLab
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
func camsyncBinary() throws -> String { try CamsyncExecutable.besideThisProcess() }

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
