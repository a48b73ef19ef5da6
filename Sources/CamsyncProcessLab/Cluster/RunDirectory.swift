public import CamsyncTopology
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A cluster's run directory as `cluster up` leaves it: `NAME.pid`, `NAME.log`, `NAME.yaml`,
/// `keys/`, `data/`. Lets later commands (`status`, `down`, `logs`, `ctl`) find the processes.
public struct RunDirectory: Sendable {
    public let path: String

    public init(path: String) {
        self.path = path
    }

    /// The default run directory of a topology: `$CAMSYNC_RUN_DIR` or `/tmp/camsync-NAME`.
    public static func `default`(for topology: Topology) -> RunDirectory {
        if let base = ProcessInfo.processInfo.environment["CAMSYNC_RUN_DIR"], !base.isEmpty {
            return RunDirectory(path: "\(base)/\(topology.name)")
        }
        return RunDirectory(path: "/tmp/camsync-\(topology.name)")
    }

    /// A recorded process and whether it is still alive.
    public struct Entry: Sendable, Equatable {
        public var name: String
        public var pid: Int32
        public var alive: Bool
    }

    public func entries() -> [Entry] {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
        return files.filter { $0.hasSuffix(".pid") }.sorted().compactMap { file in
            let name = String(file.dropLast(4))
            guard let text = try? String(contentsOfFile: "\(path)/\(file)", encoding: .utf8),
                  let pid = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)) else { return nil }
            return Entry(name: name, pid: pid, alive: Self.isAlive(pid))
        }
    }

    public func entry(_ name: String) -> Entry? { entries().first { $0.name == name } }

    public func logPath(_ name: String) -> String { "\(path)/\(name).log" }

    public static func isAlive(_ pid: Int32) -> Bool {
        guard pid > 0, kill(pid, 0) == 0 else { return false }
        // A zombie still answers kill(0); read its state.
        if let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
           let close = stat.lastIndex(of: ")") {
            let state = stat[stat.index(close, offsetBy: 2)...].first
            return state != "Z" && state != "X"
        }
        return true
    }

    /// SIGTERM every live process, group by group: everything not named in `last` first (the
    /// nodes), then each group of `last` in order (the coordinators, then etcd's members), each
    /// group SIGKILLed after `grace`. Returns the names that needed SIGKILL.
    @discardableResult
    public func stopAll(grace: Double, last: [[String]] = [["coordinator"]], progress: ((String) -> Void)? = nil) -> [String] {
        let live = entries().filter(\.alive)
        let named = Set(last.joined())
        let groups = [live.filter { !named.contains($0.name) }] + last.map { names in live.filter { names.contains($0.name) } }
        var forced: [String] = []
        for group in groups where !group.isEmpty {
            for entry in group {
                kill(entry.pid, SIGCONT)
                kill(entry.pid, SIGTERM)
            }
            let deadline = Date().addingTimeInterval(grace)
            while group.contains(where: { Self.isAlive($0.pid) }) && Date() < deadline { usleep(20_000) }
            for entry in group where Self.isAlive(entry.pid) {
                kill(entry.pid, SIGKILL)
                forced.append(entry.name)
            }
            // SIGKILL is delivered at once but a process with large mappings (etcd's bbolt file)
            // takes a moment to be torn down: the group is stopped only when it is gone.
            let killDeadline = Date().addingTimeInterval(5)
            while group.contains(where: { Self.isAlive($0.pid) }) && Date() < killDeadline { usleep(10_000) }
            for entry in group {
                progress?("stopped \(entry.name) (pid \(entry.pid))")
            }
        }
        for entry in entries() where !entry.alive {
            try? FileManager.default.removeItem(atPath: "\(path)/\(entry.name).pid")
        }
        return forced
    }
}
