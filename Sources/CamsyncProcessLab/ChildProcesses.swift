import Dispatch
import Foundation
import Synchronization
import ZeroMQ
#if canImport(Glibc)
import Glibc
#endif

/// The child processes a bench run has started, by pid, so that a run that is interrupted (SIGINT,
/// SIGTERM) or crashes (a trap, a bad access, an abort) kills them instead of leaving etcd members,
/// coordinators and nodes behind. Every `ManagedProcess` is registered from its start until it ends;
/// children started otherwise register themselves.
///
/// The pids live in a fixed table of slots, not in a Swift collection: a crash handler runs in a
/// signal handler, which may only call async-signal-safe functions (`kill`, `sigaction`, `raise`)
/// and must not take a lock or allocate. Writers hold `lock`; the handler reads the slots without
/// it (an aligned 32-bit word is read whole). A child is registered right after it is started; the
/// handler first waits for the starts under way (`whileStarting`), so a crash between a child's fork
/// and its registration does not leave it running.
public enum ChildProcesses {
    private static let capacity = 8_192
    nonisolated(unsafe) private static let slots: UnsafeMutablePointer<Int32> = {
        let slots = UnsafeMutablePointer<Int32>.allocate(capacity: capacity)
        slots.initialize(repeating: 0, count: capacity)
        return slots
    }()
    private static let lock = Locked<Void>(())
    nonisolated(unsafe) private static var sources: [any DispatchSourceSignal] = []
    /// What handled each crash signal before `installSignalHandlers` (by signal number): Swift's
    /// backtracer, or the default action.
    nonisolated(unsafe) private static let previousActions: UnsafeMutablePointer<sigaction> = {
        let actions = UnsafeMutablePointer<sigaction>.allocate(capacity: Int(NSIG))
        actions.initialize(repeating: sigaction(), count: Int(NSIG))
        return actions
    }()
    /// The signals of a crash: Swift's traps (SIGILL on x86-64, SIGTRAP on arm64), bad accesses, `abort`.
    static let crashSignals = [SIGILL, SIGTRAP, SIGSEGV, SIGBUS, SIGFPE, SIGABRT]

    /// Children being started: forked, perhaps, and not registered yet. A crash in that window would
    /// leave the newborn running, so the handler waits (briefly) for every start under way to register.
    private static let starting = Atomic<Int>(0)

    /// Runs `start` (which starts a child and registers it) as a start under way: a crash or an
    /// interrupt meanwhile waits for it before killing the children.
    public static func whileStarting<T>(_ start: () throws -> T) rethrows -> T {
        starting.add(1, ordering: .sequentiallyConsistent)
        defer { starting.subtract(1, ordering: .sequentiallyConsistent) }
        return try start()
    }

    /// Waits, up to 200 ms, until no start is under way (only async-signal-safe calls: an atomic load
    /// and `nanosleep`). Bounded, since the thread that crashed may be the one starting a child.
    private static func awaitStarts() {
        var pause = timespec(tv_sec: 0, tv_nsec: 1_000_000)
        var waited = 0
        while waited < 200 && starting.load(ordering: .sequentiallyConsistent) > 0 {
            nanosleep(&pause, nil)
            waited += 1
        }
    }

    public static func register(_ pid: Int32) {
        guard pid > 0 else { return }
        lock.withLock { _ in
            guard !(0..<capacity).contains(where: { slots[$0] == pid }) else { return }
            guard let free = (0..<capacity).first(where: { slots[$0] == 0 }) else {
                FileHandle.standardError.write(Data("bench: more than \(capacity) children; pid \(pid) is not killed on a crash\n".utf8))
                return
            }
            slots[free] = pid
        }
    }

    public static func unregister(_ pid: Int32) {
        lock.withLock { _ in
            for index in 0..<capacity where slots[index] == pid { slots[index] = 0 }
        }
    }

    /// The registered children.
    static var registered: [Int32] {
        lock.withLock { _ in (0..<capacity).map { slots[$0] }.filter { $0 > 0 } }
    }

    /// Kills every registered child with SIGKILL.
    public static func killAll() {
        awaitStarts()
        for pid in registered { kill(pid, SIGKILL) }
    }

    /// On SIGINT, SIGTERM or SIGHUP (the terminal closed): kill the children, run `beforeExit` (say,
    /// remove a temporary directory), then exit with 128 + signal. On a crash signal: kill the
    /// children from the handler, then let the crash go on as before (Swift's backtracer, or the
    /// default action). Call once, from the main thread.
    public static func installSignalHandlers(beforeExit: @escaping @Sendable () -> Void = {}) {
        for signalNumber in [SIGINT, SIGTERM, SIGHUP] {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            source.setEventHandler {
                killAll()
                beforeExit()
                exit(128 + signalNumber)
            }
            source.resume()
            sources.append(source)
        }
        _ = slots
        for signalNumber in crashSignals {
            var action = sigaction()
            action.__sigaction_handler.sa_sigaction = crashed
            action.sa_flags = SA_SIGINFO | SA_ONSTACK
            sigemptyset(&action.sa_mask)
            sigaction(signalNumber, &action, previousActions + Int(signalNumber))
        }
    }

    /// The crash handler: only async-signal-safe calls. Kills the children, then hands the signal to
    /// the handler that was there before (Swift's backtracer prints the crashed threads). A fault
    /// (`si_code` > 0) is handed on by putting that handler back: the faulting instruction runs again
    /// when this returns. A signal that was sent (`raise`, `abort`, `kill`) would not come again, and
    /// the backtracer returns from one, so that handler is called from here, and then the signal is
    /// sent again under the default action, which ends the process.
    private static let crashed: @convention(c) (Int32, UnsafeMutablePointer<siginfo_t>?, UnsafeMutableRawPointer?) -> Void = {
        signalNumber, info, context in
        ChildProcesses.awaitStarts()
        for index in 0..<ChildProcesses.capacity {
            let pid = ChildProcesses.slots[index]
            if pid > 0 { kill(pid, SIGKILL) }
        }
        let previous = ChildProcesses.previousActions + Int(signalNumber)
        guard (info?.pointee.si_code ?? 0) <= 0 else {
            sigaction(signalNumber, previous, nil)
            return
        }
        if previous.pointee.sa_flags & SA_SIGINFO != 0, let handler = previous.pointee.__sigaction_handler.sa_sigaction {
            handler(signalNumber, info, context)
        } else if let handler = previous.pointee.__sigaction_handler.sa_handler, unsafeBitCast(handler, to: UInt.self) > 1 {
            handler(signalNumber)  // neither SIG_DFL (nil) nor SIG_IGN (1)
        }
        var fallback = sigaction()
        fallback.__sigaction_handler.sa_handler = nil  // SIG_DFL
        sigaction(signalNumber, &fallback, nil)
        raise(signalNumber)  // blocked while this runs: delivered, under SIG_DFL, when it returns
    }
}
