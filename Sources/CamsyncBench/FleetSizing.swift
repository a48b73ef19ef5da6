/// docs/OPERATIONS.md "The heartbeat interval for a fleet of N nodes": the interval that keeps the
/// leader's heartbeat work at most ≈ 2,000 node heartbeats a second (≈ a tenth of a core here).
enum FleetSizing {
    static func heartbeatMilliseconds(nodes: Int) -> Int64 {
        switch nodes {
        case ...1_000: 500
        case ...2_000: 1_000
        case ...5_000: 2_000
        case ...10_000: 5_000
        default: 10_000
        }
    }
}
