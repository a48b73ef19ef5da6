public import CamsyncProcessLab
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Small helpers for the processes a benchmark starts.
public enum BenchSystem {
    /// An unused loopback TCP port.
    public static func freeTCPPort() -> Int { LoopbackPorts.free() }

    public static func loopbackEndpoint() -> String { "tcp://127.0.0.1:\(freeTCPPort())" }

    /// A field of `/proc/PID/status` in kB (`VmRSS`, `VmHWM`, …), nil if unreadable.
    public static func procStatusKilobytes(pid: Int32, field: String) -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix(field + ":") {
            let number = line.dropFirst(field.count + 1).split(whereSeparator: { $0 == " " || $0 == "\t" }).first
            return number.flatMap { Int($0) }
        }
        return nil
    }

    /// CPU seconds (user + system) each thread of a process has used, by thread id.
    public static func threadCPUSeconds(pid: Int32) -> [Int32: Double] {
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        var result: [Int32: Double] = [:]
        for task in (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? [] {
            guard let tid = Int32(task),
                  let stat = try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { continue }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { continue }
            result[tid] = (user + system) / ticks
        }
        return result
    }

    /// CPU seconds (user + system) a process has used, its ended threads included (`/proc/PID/stat`).
    public static func processCPUSeconds(pid: Int32) -> Double? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// How many file descriptors a process holds open (`/proc/PID/fd`).
    public static func openDescriptors(pid: Int32) -> Int? {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd"))?.count
    }

    /// CPU use of a process between two `threadCPUSeconds` readings over `seconds` of wall time:
    /// the whole process and its busiest thread, as fractions of one core.
    public static func cpuShare(before: [Int32: Double], after: [Int32: Double], seconds: Double) -> (process: Double, busiestThread: Double) {
        var total = 0.0, busiest = 0.0
        for (tid, value) in after {
            let used = value - (before[tid] ?? 0)
            total += used
            busiest = max(busiest, used)
        }
        return (total / seconds, busiest / seconds)
    }

    /// Resident set size of a process in MiB.
    public static func rssMegabytes(pid: Int32) -> Double? {
        procStatusKilobytes(pid: pid, field: "VmRSS").map { Double($0) / 1024 }
    }

    /// This machine, for the report.
    public static func machine() -> MachineInfo {
        var info = utsname()
        uname(&info)
        let kernel = withUnsafePointer(to: &info.release) {
            $0.withMemoryRebound(to: CChar.self, capacity: 65) { String(cString: $0) }
        }
        let memKB = (try? String(contentsOfFile: "/proc/meminfo", encoding: .utf8))?
            .split(separator: "\n").first { $0.hasPrefix("MemTotal:") }
            .flatMap { $0.split(separator: " ").dropFirst().first }.flatMap { Int($0) } ?? 0
        let cpu = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8))?
            .split(separator: "\n").first { $0.hasPrefix("model name") }
            .map { $0.split(separator: ":", maxSplits: 1).last.map { $0.trimmingCharacters(in: .whitespaces) } ?? "" } ?? ""
        let os = (try? String(contentsOfFile: "/etc/os-release", encoding: .utf8))?
            .split(separator: "\n").first { $0.hasPrefix("PRETTY_NAME=") }
            .map { String($0.dropFirst("PRETTY_NAME=".count)).trimmingCharacters(in: CharacterSet(charactersIn: "\"")) } ?? ""
        return MachineInfo(cpus: Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))), cpuModel: cpu,
                           memoryGiB: (Double(memKB) / 1024 / 1024 * 10).rounded() / 10, kernel: kernel, os: os,
                           loadAverage: loadAverage())
    }

    /// The 1-minute load average (other work on a shared machine skews every figure).
    public static func loadAverage() -> Double {
        let text = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? ""
        return text.split(separator: " ").first.flatMap { Double($0) } ?? 0
    }

    /// The running camsync binary.
    public static func currentExecutable() -> String { CamsyncExecutable.current }

    public static func sleep(milliseconds: Int) { usleep(useconds_t(milliseconds * 1000)) }
}

/// What the figures were measured on.
public struct MachineInfo: Codable, Sendable, Equatable {
    public var cpus: Int
    public var cpuModel: String
    public var memoryGiB: Double
    public var kernel: String
    public var os: String
    /// 1-minute load average when the run started.
    public var loadAverage: Double
    public init(cpus: Int, cpuModel: String, memoryGiB: Double, kernel: String, os: String, loadAverage: Double = 0) {
        self.loadAverage = loadAverage
        self.cpus = cpus
        self.cpuModel = cpuModel
        self.memoryGiB = memoryGiB
        self.kernel = kernel
        self.os = os
    }
}

/// A benchmark could not run (setup failed, a process died, a reply never came).
public struct BenchError: Error, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// The HA leadership moved while no trial killed the leader: a fault of the cluster under test (a
/// healthy leader deposed), which fails the benchmark's run rather than being noted beside it.
public struct UncausedLeadershipMove: Error, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { "the leadership moved without a kill: \(message)" }
}
