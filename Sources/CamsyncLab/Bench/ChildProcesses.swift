import Dispatch
import Foundation
import ZeroMQ
#if canImport(Glibc)
import Glibc
#endif

/// The child processes a bench run has started, by pid, so that an interrupted run (SIGINT,
/// SIGTERM) kills them instead of leaving coordinators and nodes behind.
public enum ChildProcesses {
    private static let pids = Locked<Set<Int32>>([])
    nonisolated(unsafe) private static var sources: [any DispatchSourceSignal] = []

    public static func register(_ pid: Int32) { if pid > 0 { pids.withLock { _ = $0.insert(pid) } } }
    public static func unregister(_ pid: Int32) { pids.withLock { _ = $0.remove(pid) } }

    /// Kills every registered child with SIGKILL.
    public static func killAll() {
        for pid in pids.withLock({ $0 }) { kill(pid, SIGKILL) }
    }

    /// On SIGINT or SIGTERM: kill the children, then exit with 128 + signal. Call once, from the main thread.
    public static func installSignalHandlers() {
        for signalNumber in [SIGINT, SIGTERM] {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            source.setEventHandler {
                killAll()
                exit(128 + signalNumber)
            }
            source.resume()
            sources.append(source)
        }
    }
}
