import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A child process whose output goes to a log file (so nothing ever blocks on a full pipe),
/// which can be signalled, waited for with a bound, and is always reaped.
public final class ManagedProcess: @unchecked Sendable {
    public let name: String
    public let logPath: String
    public let arguments: [String]
    private let process = Process()
    /// Whether dropping the last reference kills a still-running child (default true).
    public var killsOnDeinit = true

    public init(name: String, executable: String, arguments: [String], logPath: String,
                environment: [String: String]? = nil) throws {
        self.name = name
        self.logPath = logPath
        self.arguments = arguments
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        let log = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
        log.seekToEndOfFile()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = log
        process.standardError = log
        process.standardInput = FileHandle.nullDevice
        if let environment { process.environment = environment }
        // From its start until it ends, a crash or an interrupt of a bench kills it (`ChildProcesses`).
        process.terminationHandler = { ChildProcesses.unregister($0.processIdentifier) }
        try ChildProcesses.whileStarting {
            try process.run()
            ChildProcesses.register(process.processIdentifier)
        }
        if !process.isRunning { ChildProcesses.unregister(process.processIdentifier) }  // ended before it was registered
        try? log.close()
    }

    public var pid: Int32 { process.processIdentifier }
    public var isRunning: Bool { process.isRunning }
    public var exitStatus: Int32? { process.isRunning ? nil : process.terminationStatus }

    public func signal(_ signal: Int32) {
        if process.isRunning { kill(process.processIdentifier, signal) }
    }

    /// Waits up to `timeout` seconds for the process to end; true if it did.
    @discardableResult
    public func wait(timeout: Double) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        return !process.isRunning
    }

    /// SIGTERM, then SIGKILL after `grace` seconds; always reaps. Returns the exit status.
    @discardableResult
    public func stop(grace: Double = 5) -> Int32 {
        if process.isRunning {
            kill(process.processIdentifier, SIGTERM)
            if !wait(timeout: grace) {
                kill(process.processIdentifier, SIGKILL)
            }
        }
        return reap()
    }

    /// Waits, with a bound, for the ended (or killed) child to be reaped. A Swift child that crashed
    /// runs `swift-backtrace` as a child of its own; a backtracer that hangs keeps the crashed
    /// process from being reaped (seen once in CI), so after 5 s the child's own children are
    /// killed as well. Returns the exit status, or -1 for a child that was never reaped (reported,
    /// not waited for forever).
    private func reap() -> Int32 {
        if !wait(timeout: 5) {
            for descendant in Self.children(of: process.processIdentifier) { kill(descendant, SIGKILL) }
            kill(process.processIdentifier, SIGKILL)
            if !wait(timeout: 5) { return -1 }
        }
        return process.terminationStatus
    }

    /// The processes whose parent is `pid` (from /proc).
    static func children(of pid: Int32) -> [Int32] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { entry -> Int32? in
            guard let candidate = Int32(entry),
                  let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { return nil }
            // After "pid (comm)": state, then the parent's pid.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            return fields.count > 1 && Int32(fields[1]) == pid ? candidate : nil
        }
    }

    /// The last `lines` lines of the log (for failure messages).
    public func logTail(_ lines: Int = 30) -> String {
        let text = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
        return text.split(separator: "\n", omittingEmptySubsequences: false).suffix(lines).joined(separator: "\n")
    }

    deinit {
        if killsOnDeinit, process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            _ = reap()
        }
    }
}
