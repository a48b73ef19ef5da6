public import CamsyncStats
import CamsyncRuntime
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The disk's part of a durable commit: append a small block to a file and `fdatasync` it, one at a
/// time, in a given directory (put it on the journal's filesystem). SQLite in WAL mode with
/// `synchronous=FULL` writes the turn's pages to the WAL and syncs it once per commit, so this is
/// the least one journaled group commit can wait for.
public enum DiskSync {
    public static func measure(directory: String, count: Int, bytes: Int = 4096) throws -> LatencySummary {
        let path = directory + "/fsync-probe.bin"
        let fd = open(path, O_CREAT | O_WRONLY | O_APPEND, 0o644)
        guard fd >= 0 else { throw BenchError("cannot open \(path)") }
        defer {
            close(fd)
            unlink(path)
        }
        let block = [UInt8](repeating: 7, count: bytes)
        var syncs = LatencyRecorder()
        for _ in 0..<count {
            let t = Clock.monotonicNanoseconds()
            let written = block.withUnsafeBytes { write(fd, $0.baseAddress, bytes) }
            guard written == bytes, fdatasync(fd) == 0 else { throw BenchError("write + fdatasync of \(path) failed: errno \(errno)") }
            syncs.record(from: t, to: Clock.monotonicNanoseconds())
        }
        return syncs.summary
    }
}
