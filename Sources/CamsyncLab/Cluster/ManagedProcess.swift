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
        try process.run()
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
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// The last `lines` lines of the log (for failure messages).
    public func logTail(_ lines: Int = 30) -> String {
        let text = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
        return text.split(separator: "\n", omittingEmptySubsequences: false).suffix(lines).joined(separator: "\n")
    }

    deinit {
        if killsOnDeinit, process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }
}
