import CamsyncClient
import CamsyncPolicy
import Foundation
import Metrics

/// The web view's state and its subscribers. The follower `publish`es after each applied batch the
/// nodes it named; the feed rebuilds only those (`FleetModel`). Each page connection (`/events`)
/// gets the totals and the whole device index first (`whole`), then per batch the totals, the index
/// rows that changed and the devices whose screens or cameras changed (`touched`: the page fetches
/// `/device.json` again when it shows one of them), plus the batch's timeline entry — never the
/// whole index or every device's detail again. Every message carries the feed's `version`; a page
/// that sees a gap (its buffer overflowed, below) reconnects and starts from a whole view again.
/// Buffers are bounded: a slow browser loses messages, never slows the follower.
final class WebFeed: @unchecked Sendable {
    /// Messages kept per connection before the oldest are dropped.
    static let bufferLimit = 256
    static let timelineLimit = 200

    private let lock = NSLock()
    private var fleet = FleetModel()
    private var sequence: UInt64 = 0
    private var term: UInt64 = 0
    private var timeline: [TimelineEntry] = []
    private var version: UInt64 = 0
    private var following = false
    private var subscribers: [UUID: AsyncStream<String>.Continuation] = [:]
    /// `camsync_web_page_streams`: the pages following the live stream now.
    private let pageStreams = Gauge(label: "camsync_web_page_streams")
    /// The replica with the decision behind each app's state, for the why panel (`/why.json`).
    private var replay: LogReplay?
    /// Every coordinator and etcd member, as the HA watcher last found them (nil: not asked yet).
    private var highAvailability: HighAvailabilityView?

    /// The HA panel's data and when it was gathered (ms since the epoch: the page says how long ago).
    struct HighAvailabilityView: Encodable, Equatable {
        var report: HighAvailabilityReport
        var checkedAtMs: Int64
    }

    struct TimelineEntry: Codable, Equatable, Sendable {
        var sequence: UInt64
        var timeMs: Int64
        var node: String
        var command: String
        var events: [String]
    }

    /// The page's start: the totals and the whole index, no device's detail.
    private struct Whole: Encodable {
        var version: UInt64
        var following: Bool
        var sequence: UInt64
        var term: UInt64
        var totals: FleetTotals
        var devices: [DeviceEntry]
        var timeline: [TimelineEntry]
        var highAvailability: HighAvailabilityView?
    }

    private struct Change: Encodable {
        var version: UInt64
        var following: Bool
        var sequence: UInt64
        var term: UInt64
        var totals: FleetTotals
        var devices: [DeviceEntry]
        var removedDevices: [String]
        var touched: [String]
        var timeline: [TimelineEntry]
    }

    /// `/state.json`: the whole cluster for scripts (every screen and camera system), with the totals.
    private struct State: Encodable {
        var version: UInt64
        var following: Bool
        var view: WebView
        var totals: FleetTotals
        var timeline: [TimelineEntry]
        var highAvailability: HighAvailabilityView?
    }

    /// `engine` after `entries` were applied, the batches naming `nodes` (nil: a snapshot was adopted,
    /// everything is rebuilt and every page starts again from a whole view). Returns the totals and
    /// the sessions by state, for the gauges.
    @discardableResult
    func publish(_ engine: PolicyEngine, sequence: UInt64, term: UInt64, nodes: Set<NodeID>?, entries: [TimelineEntry],
                 replay: LogReplay? = nil) -> (totals: FleetTotals, sessions: [ClusterGauges.SessionSeries: Int]) {
        lock.lock()
        defer { lock.unlock() }
        if let replay { self.replay = replay }
        version += 1
        self.sequence = sequence
        self.term = term
        timeline.append(contentsOf: entries)
        if timeline.count > Self.timelineLimit { timeline.removeFirst(timeline.count - Self.timelineLimit) }
        let message: String
        if let nodes {
            let change = fleet.update(engine, nodes: nodes)
            message = Self.event("change", Change(
                version: version, following: following, sequence: sequence, term: term, totals: fleet.totals,
                devices: change.entries, removedDevices: change.removed, touched: change.touched, timeline: entries))
        } else {
            fleet.rebuild(engine)
            message = Self.event("whole", whole())
        }
        for continuation in subscribers.values { continuation.yield(message) }
        return (fleet.totals, fleet.sessions)
    }

    private func whole() -> Whole {
        Whole(version: version, following: following, sequence: sequence, term: term, totals: fleet.totals,
              devices: fleet.index, timeline: timeline, highAvailability: highAvailability)
    }

    /// A new HA panel (`ha` event; not versioned: each one is whole, and a page may miss one).
    func publish(highAvailability report: HighAvailabilityReport, checkedAtMs: Int64) {
        lock.lock()
        defer { lock.unlock() }
        let view = HighAvailabilityView(report: report, checkedAtMs: checkedAtMs)
        highAvailability = view
        let message = Self.event("ha", view)
        for continuation in subscribers.values { continuation.yield(message) }
    }

    /// Whether the follower hears the coordinator (the page greys out when it does not).
    func setFollowing(_ value: Bool) {
        lock.lock()
        defer { lock.unlock() }
        guard following != value else { return }
        following = value
        version += 1
        let message = Self.event("whole", whole())
        for continuation in subscribers.values { continuation.yield(message) }
    }

    /// A new page connection: the whole view now, then changes as they come.
    func subscribe() -> AsyncStream<String> {
        let (stream, continuation) = AsyncStream<String>.makeStream(bufferingPolicy: .bufferingNewest(Self.bufferLimit))
        let id = UUID()
        lock.lock()
        continuation.yield(Self.event("whole", whole()))
        subscribers[id] = continuation
        pageStreams.record(subscribers.count)
        lock.unlock()
        continuation.onTermination = { [weak self] _ in
            guard let self else { return }
            self.lock.lock()
            self.subscribers[id] = nil
            self.pageStreams.record(self.subscribers.count)
            self.lock.unlock()
        }
        return stream
    }

    /// The whole cluster as JSON (`/state.json`, for scripts and tests), built on demand from the replica.
    func wholeJSON() -> String {
        lock.lock()
        defer { lock.unlock() }
        let view = replay.map { WebView($0.engine.state, sequence: sequence, term: term) }
            ?? WebView(sequence: sequence, term: term, screens: [], cameras: [])
        return Self.json(State(version: version, following: following, view: view, totals: fleet.totals, timeline: timeline,
                               highAvailability: highAvailability))
    }

    /// One device's screens and camera systems (`/device.json?id=ID`: a device with its attached
    /// displays; a display attached to a device gives its device's): nil for an unknown id.
    func deviceJSON(_ id: String) -> String? {
        lock.lock()
        defer { lock.unlock() }
        guard var view = fleet.detail(id) else { return nil }
        view.sequence = sequence
        view.term = term
        return Self.json(view)
    }

    /// `ctl why` for one app as JSON (`/why.json?app=NODE/APP`): nil when the follower has no such app.
    func whyJSON(app: AppID) -> String? {
        lock.lock()
        let replay = self.replay
        lock.unlock()
        return replay.flatMap { WhyReport(app: app, replay: $0) }.map { Self.json($0) }
    }

    /// The cluster at a past `sequence`, replayed from the log (`/history.json?sequence=N`, the page's
    /// history slider), only the device `device` shows (`&device=ID`) when given: nil when the
    /// follower's history does not reach it.
    func historyJSON(sequence: UInt64, device: String? = nil) -> String? {
        lock.lock()
        let replay = self.replay
        lock.unlock()
        guard let replay, let state = replay.history.state(at: sequence) else { return nil }
        struct Past: Encodable {
            var view: WebView
            var first: UInt64
            var last: UInt64
        }
        let view = WebView(state, sequence: sequence, term: 0)
        let group = device.map { id -> Set<String> in
            let owner = state.nodes[NodeID(id)]?.attachedTo ?? NodeID(id)
            return Set(([owner] + state.attachedDisplays(device: owner)).map(\.rawValue))
        }
        return Self.json(Past(view: group.map { view.only($0) } ?? view, first: replay.history.baseSequence,
                              last: replay.history.lastSequence))
    }

    /// Ends every page stream (shutdown).
    func finishAll() {
        lock.lock()
        let continuations = Array(subscribers.values)
        subscribers.removeAll()
        lock.unlock()
        for continuation in continuations { continuation.finish() }
    }

    var subscriberCount: Int {
        lock.lock()
        defer { lock.unlock() }
        return subscribers.count
    }

    /// One server-sent event: `event: NAME` and one `data:` line of JSON.
    private static func event(_ name: String, _ value: some Encodable) -> String {
        "event: \(name)\ndata: \(json(value))\n\n"
    }

    private static func json(_ value: some Encodable) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return (try? encoder.encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }
}
