import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// What a finished command printed (stdout and stderr together, or stdout alone) and its exit status.
public struct CommandResult: Sendable {
    public var status: Int32
    public var output: String

    public init(status: Int32, output: String) {
        self.status = status
        self.output = output
    }
}

/// Runs `executable` to completion, draining its output while it runs; SIGKILLs it after `timeout`
/// seconds (the result then says so). `environment` entries are added to this process's environment.
public func runCommand(_ executable: String, _ arguments: [String], environment: [String: String] = [:],
                       includeStandardError: Bool = true, timeout: Double = 120) throws -> CommandResult {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    if !environment.isEmpty {
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    }
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = includeStandardError ? pipe : FileHandle.nullDevice
    try process.run()
    // Its own children too: a crashed Swift command's hung backtracer would hold the output pipe open.
    let killer = DispatchWorkItem {
        guard process.isRunning else { return }
        for child in ManagedProcess.children(of: process.processIdentifier) { kill(child, SIGKILL) }
        kill(process.processIdentifier, SIGKILL)
    }
    DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: killer)
    var output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    killer.cancel()
    if process.terminationReason == .uncaughtSignal, process.terminationStatus == SIGKILL {
        output += "\n--- killed after \(timeout) s\n"
    }
    return CommandResult(status: process.terminationStatus, output: output)
}
