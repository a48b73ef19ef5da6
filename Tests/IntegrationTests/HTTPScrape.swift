import CamsyncProcessLab
import Foundation

/// GETs over HTTP from the daemons' `--http` servers (curl, from the Makefile's apt list), and the
/// Prometheus text format read back into numbers.
enum HTTPScrape {
    struct Response {
        var status: Int
        var body: String
    }

    static func get(_ url: String, timeout: Double = 10) throws -> Response {
        let result = try runCommand("/usr/bin/curl", ["-s", "--max-time", "\(Int(timeout))", "-w", "\n%{http_code}", url],
                                    includeStandardError: false, timeout: timeout + 5)
        var lines = result.output.split(separator: "\n", omittingEmptySubsequences: false)
        let status = lines.popLast().flatMap { Int($0) } ?? 0
        return Response(status: status, body: lines.joined(separator: "\n"))
    }

    /// `/metrics` as `series → value`, a series being `name` or `name{label="value",…}` as exposed.
    static func metrics(_ address: String) throws -> Metrics {
        let response = try get("http://\(address)/metrics")
        guard response.status == 200 else { throw ClusterWaitError(message: "GET /metrics: HTTP \(response.status)") }
        return Metrics(text: response.body)
    }

    struct Metrics {
        var values: [String: Double] = [:]

        init(text: String) {
            for line in text.split(separator: "\n") where !line.hasPrefix("#") {
                guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else { continue }
                values[String(line[..<space])] = value
            }
        }

        subscript(_ series: String) -> Double? { values[series] }

        /// The sum over every series of `name` (any labels).
        func sum(_ name: String) -> Double {
            values.filter { $0.key == name || $0.key.hasPrefix(name + "{") }.values.reduce(0, +)
        }
    }
}
