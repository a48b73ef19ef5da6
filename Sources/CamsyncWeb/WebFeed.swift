import CamsyncClient
import CamsyncPolicy
import Foundation
import Metrics

/// The web view's state and its subscribers. The follower `publish`es a new view per applied batch;
/// each page connection (`/events`) gets the whole view first, then per batch only the screens and
/// camera systems that changed, plus the batch's timeline entry. Every message carries the feed's
/// `version`; a page that sees a gap (its buffer overflowed, below) reconnects and starts from a
/// whole view again. Buffers are bounded: a slow browser loses messages, never slows the follower.
final class WebFeed: @unchecked Sendable {
    /// Messages kept per connection before the oldest are dropped.
    static let bufferLimit = 256
    static let timelineLimit = 200

    private let lock = NSLock()
    private var view = WebView(sequence: 0, term: 0, screens: [], cameras: [])
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

    private struct Whole: Encodable {
        var version: UInt64
        var following: Bool
        var view: WebView
        var timeline: [TimelineEntry]
        var highAvailability: HighAvailabilityView?
    }

    private struct Change: Encodable {
        var version: UInt64
        var following: Bool
        var sequence: UInt64
        var term: UInt64
        var screens: [ScreenView]
        var removedScreens: [String]
        var cameras: [CameraView]
        var removedCameras: [String]
        var timeline: [TimelineEntry]
    }

    /// A new view after `entries` were applied (empty after a snapshot).
    func publish(_ next: WebView, entries: [TimelineEntry], replay: LogReplay? = nil) {
        lock.lock()
        defer { lock.unlock() }
        if let replay { self.replay = replay }
        version += 1
        let previousScreens = Dictionary(uniqueKeysWithValues: view.screens.map { ($0.id, $0) })
        let previousCameras = Dictionary(uniqueKeysWithValues: view.cameras.map { ($0.id, $0) })
        let change = Change(
            version: version, following: following, sequence: next.sequence, term: next.term,
            screens: next.screens.filter { previousScreens[$0.id] != $0 },
            removedScreens: Set(previousScreens.keys).subtracting(next.screens.map(\.id)).sorted(),
            cameras: next.cameras.filter { previousCameras[$0.id] != $0 },
            removedCameras: Set(previousCameras.keys).subtracting(next.cameras.map(\.id)).sorted(),
            timeline: entries)
        view = next
        timeline.append(contentsOf: entries)
        if timeline.count > Self.timelineLimit { timeline.removeFirst(timeline.count - Self.timelineLimit) }
        let message = Self.event("change", change)
        for continuation in subscribers.values { continuation.yield(message) }
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
        let message = Self.event("whole", Whole(version: version, following: following, view: view, timeline: timeline, highAvailability: highAvailability))
        for continuation in subscribers.values { continuation.yield(message) }
    }

    /// A new page connection: the whole view now, then changes as they come.
    func subscribe() -> AsyncStream<String> {
        let (stream, continuation) = AsyncStream<String>.makeStream(bufferingPolicy: .bufferingNewest(Self.bufferLimit))
        let id = UUID()
        lock.lock()
        continuation.yield(Self.event("whole", Whole(version: version, following: following, view: view, timeline: timeline, highAvailability: highAvailability)))
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

    /// The whole view as JSON (`/state.json`, for scripts and tests).
    func wholeJSON() -> String {
        lock.lock()
        defer { lock.unlock() }
        return Self.json(Whole(version: version, following: following, view: view, timeline: timeline, highAvailability: highAvailability))
    }

    /// `ctl why` for one app as JSON (`/why.json?app=NODE/APP`): nil when the follower has no such app.
    func whyJSON(app: AppID) -> String? {
        lock.lock()
        let replay = self.replay
        lock.unlock()
        return replay.flatMap { WhyReport(app: app, replay: $0) }.map { Self.json($0) }
    }

    /// The cluster at a past `sequence`, replayed from the log (`/history.json?sequence=N`, the page's
    /// history slider): nil when the follower's history does not reach it.
    func historyJSON(sequence: UInt64) -> String? {
        lock.lock()
        let replay = self.replay
        lock.unlock()
        guard let replay, let state = replay.history.state(at: sequence) else { return nil }
        struct Past: Encodable {
            var view: WebView
            var first: UInt64
            var last: UInt64
        }
        return Self.json(Past(view: WebView(state, sequence: sequence, term: 0), first: replay.history.baseSequence,
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
