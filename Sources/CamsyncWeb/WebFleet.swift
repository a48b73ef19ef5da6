import CamsyncPolicy

/// One row of the page's device index: enough to list, search and pick a device among thousands.
/// A device lists the displays attached to it; a display names the device it is attached to.
struct DeviceEntry: Codable, Equatable, Sendable {
    var id: String
    /// `device` or `display`.
    var kind: String
    var alive: Bool
    var attachedTo: String?
    var displays: [String]?
    /// One word: `dead`; a device's `camera` (a session runs), `waiting` (a session waits for its camera),
    /// `pip`, `apps` (apps run), `idle`; a display's `attached` or `detached`.
    var status: String
}

/// The cluster's totals, the head of the page at any size.
struct FleetTotals: Codable, Equatable, Sendable {
    var devices = 0
    var displays = 0
    var attachedDisplays = 0
    var alive = 0
    var dead = 0
    var appsRunning = 0
    var sessionsRunning = 0
    /// Sessions that want to run and are interrupted (waiting for a camera, C6).
    var sessionsWaiting = 0
    /// Active, stashed or suspended PiP windows.
    var pipWindows = 0
    var audioActive = 0
    var microphonesHeld = 0
    var cameraSystems = 0
    var camerasHeld = 0

    mutating func add(_ other: FleetTotals, sign: Int = 1) {
        devices += sign * other.devices
        displays += sign * other.displays
        attachedDisplays += sign * other.attachedDisplays
        alive += sign * other.alive
        dead += sign * other.dead
        appsRunning += sign * other.appsRunning
        sessionsRunning += sign * other.sessionsRunning
        sessionsWaiting += sign * other.sessionsWaiting
        pipWindows += sign * other.pipWindows
        audioActive += sign * other.audioActive
        microphonesHeld += sign * other.microphonesHeld
        cameraSystems += sign * other.cameraSystems
        camerasHeld += sign * other.camerasHeld
    }
}

/// The web view kept per node and updated only where a batch touched it, so that a change costs in
/// proportion to the devices it touched, not to the fleet: each node's screen, its camera systems,
/// its index row and its share of the totals (and of the session gauges).
struct FleetModel {
    private(set) var entries: [String: DeviceEntry] = [:]
    private(set) var screens: [String: ScreenView] = [:]
    /// Camera systems by host, in id order.
    private(set) var cameras: [String: [CameraView]] = [:]
    private var figures: [String: Figures] = [:]
    private(set) var totals = FleetTotals()
    /// Capture sessions by (state, reason), for `camsync_sessions`.
    private(set) var sessions: [ClusterGauges.SessionSeries: Int] = [:]

    /// One node's share of the totals.
    struct Figures {
        var totals = FleetTotals()
        var sessions: [ClusterGauges.SessionSeries: Int] = [:]
    }

    /// What a change sends: the index rows that changed or went, and the devices (index ids of
    /// devices, or of displays attached to none) whose screens or cameras changed.
    struct Change {
        var entries: [DeviceEntry] = []
        var removed: [String] = []
        var touched: [String] = []
    }

    /// The index, in id order.
    var index: [DeviceEntry] { entries.values.sorted { $0.id < $1.id } }

    /// Rebuilds every node (a snapshot adopted).
    mutating func rebuild(_ engine: PolicyEngine) {
        self = FleetModel()
        _ = update(engine, nodes: Set(engine.state.nodes.keys))
    }

    /// Rebuilds `nodes` and the devices and displays grouped with them (before and after).
    mutating func update(_ engine: PolicyEngine, nodes: Set<NodeID>) -> Change {
        let state = engine.state
        var affected = Set<String>()
        for node in nodes {
            affected.insert(node.rawValue)
            if let entry = entries[node.rawValue] {
                if let device = entry.attachedTo { affected.insert(device) }
                affected.formUnion(entry.displays ?? [])
            }
            if let record = state.nodes[node] {
                if let device = record.attachedTo { affected.insert(device.rawValue) }
                if record.kind == .device { affected.formUnion(engine.attachedDisplays(of: node).map(\.rawValue)) }
            }
        }
        var change = Change()
        var touched = Set<String>()
        for id in affected {
            if let old = entries[id] { touched.insert(old.attachedTo ?? old.id) }
            let node = NodeID(id)
            guard let record = state.nodes[node] else {
                if entries.removeValue(forKey: id) != nil { change.removed.append(id) }
                screens[id] = nil
                cameras[id] = nil
                setFigures(id, nil)
                continue
            }
            touched.insert(record.attachedTo?.rawValue ?? id)
            let apps = WebView.apps(showingOn: node, state: state) { device in
                engine.runningApps(of: device).compactMap { state.apps[$0] }
            }
            let screen = ScreenView(record, apps: apps, state: state)
            let systems = engine.cameraSystems(hostedBy: node).compactMap { state.cameraSystems[$0] }
            screens[id] = screen
            cameras[id] = systems.isEmpty ? nil : systems.map { CameraView($0, apps: apps) }
            setFigures(id, Self.figures(record, screen: screen, apps: apps.filter { $0.id.device == node }, systems: systems))
        }
        // Rows after every figure is in: a device's word reads its displays' figures too.
        for id in affected {
            guard let record = state.nodes[NodeID(id)] else { continue }
            let entry = self.entry(record, displays: record.kind == .device ? engine.attachedDisplays(of: record.id).map(\.rawValue) : [])
            if entries[id] != entry {
                entries[id] = entry
                change.entries.append(entry)
            }
        }
        change.entries.sort { $0.id < $1.id }
        change.removed.sort()
        change.touched = touched.sorted()
        return change
    }

    /// The screens and camera systems shown for the index row `id`: a device with its attached
    /// displays (a display attached to a device shows its device's); nil for an unknown id.
    func detail(_ id: String) -> WebView? {
        guard let entry = entries[id] else { return nil }
        let owner = entry.attachedTo.flatMap { entries[$0] } ?? entry
        let ids = [owner.id] + (owner.displays ?? [])
        return WebView(sequence: 0, term: 0, screens: ids.compactMap { screens[$0] }, cameras: ids.flatMap { cameras[$0] ?? [] })
    }

    private mutating func setFigures(_ id: String, _ new: Figures?) {
        if let old = figures[id] {
            totals.add(old.totals, sign: -1)
            for (series, count) in old.sessions { sessions[series, default: 0] -= count }
        }
        figures[id] = new
        if let new {
            totals.add(new.totals)
            for (series, count) in new.sessions { sessions[series, default: 0] += count }
        }
    }

    private static func figures(_ record: NodeRecord, screen: ScreenView, apps: [AppRecord], systems: [CameraSystemRecord]) -> Figures {
        var figures = Figures()
        var t = FleetTotals()
        if record.kind == .device { t.devices = 1 } else { t.displays = 1 }
        if record.kind == .display, record.attachedTo != nil { t.attachedDisplays = 1 }
        if record.alive { t.alive = 1 } else { t.dead = 1 }
        for app in apps {
            t.appsRunning += 1
            if let session = app.session {
                figures.sessions[ClusterGauges.series(session.state), default: 0] += 1
                if case .running = session.state { t.sessionsRunning += 1 }
                if session.wantsToRun, case .interrupted = session.state { t.sessionsWaiting += 1 }
            }
            switch app.pip?.window {
            case .active?, .suspended?: t.pipWindows += 1
            default: break
            }
            if app.audioSession.isActive { t.audioActive += 1 }
        }
        if screen.microphone != nil { t.microphonesHeld = 1 }
        t.cameraSystems = systems.count
        t.camerasHeld = systems.filter { $0.holder != nil }.count
        figures.totals = t
        return figures
    }

    private func entry(_ record: NodeRecord, displays: [String]) -> DeviceEntry {
        let id = record.id.rawValue
        let status: String
        if !record.alive {
            status = "dead"
        } else if record.kind == .display {
            status = record.attachedTo == nil ? "detached" : "attached"
        } else {
            var t = figures[id]?.totals ?? FleetTotals()
            for display in displays { t.add(figures[display]?.totals ?? FleetTotals()) }
            status = t.sessionsRunning > 0 ? "camera" : t.sessionsWaiting > 0 ? "waiting" : t.pipWindows > 0 ? "pip"
                : t.appsRunning > 0 ? "apps" : "idle"
        }
        return DeviceEntry(id: id, kind: "\(record.kind)", alive: record.alive, attachedTo: record.attachedTo?.rawValue,
                           displays: displays.isEmpty ? nil : displays, status: status)
    }
}

/// The nodes a batch names: every `NodeID` in its command and events, however nested (an app's
/// device, a camera system's host, a stage window's or PiP's screen). `FleetModel.update` widens
/// them to their devices and displays.
enum NamedNodes {
    static func of(_ command: Command, _ events: [Event]) -> Set<NodeID> {
        var nodes = Set<NodeID>()
        collect(command, into: &nodes)
        for event in events { collect(event, into: &nodes) }
        return nodes
    }

    private static func collect(_ value: Any, into nodes: inout Set<NodeID>) {
        if let node = value as? NodeID { nodes.insert(node); return }
        if value is String || value is Int || value is UInt64 || value is Double || value is Bool { return }
        for child in Mirror(reflecting: value).children { collect(child.value, into: &nodes) }
    }
}
