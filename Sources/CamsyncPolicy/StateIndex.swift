/// Look-up tables the engine keeps next to its `ClusterState`, so that applying a command costs
/// in proportion to what the command touches (one device's running apps, one host's camera systems),
/// not to the size of the cluster or to the apps a device has installed (docs/POLICY.md "Performance").
///
/// Derived data only: built from a state when an engine is created (`init(_:)`), then kept in
/// step by the engine's own mutations — the only writer of `PolicyEngine.state`. It is never part
/// of the engine's equality or hash, nor of the wire. `StateIndex(state) == index` after every
/// command is tested (IndexTests).
struct StateIndex: Hashable, Sendable {
    /// The running apps (`Scene.isRunning`) per device, in id order. The rules a command settles
    /// look only at these: an app that does not run has no session, PiP window, audio state or role
    /// (`invariantViolations`), so a device's installed apps that do not run cost nothing.
    private var runningByDevice: [NodeID: [AppID]] = [:]
    /// Every installed app per device, running or not, in id order: a device group's part of the
    /// state (`state(ofGroups:)`) takes its device's apps from here, not from a pass over every app.
    /// Apps are never uninstalled.
    private var installedByDevice: [NodeID: [AppID]] = [:]
    /// The displays attached to each device (`NodeRecord.attachedTo`), in id order.
    private var displaysByDevice: [NodeID: [NodeID]] = [:]
    /// The displays whose registration names each device (`DisplayAttributes.attachedTo`, what
    /// they are configured for, attached or not), in id order: the displays that wait for a device
    /// are found among these, not by a pass over every node. Nodes are never removed.
    private var displaysConfiguredFor: [NodeID: [NodeID]] = [:]
    /// The camera systems each node hosts, in id order. Systems are never removed.
    private var systemsByHost: [NodeID: [CameraSystemID]] = [:]
    /// Apps that have a capture session, by the host of the session's camera.
    private var sessionsByCameraHost: [NodeID: Set<AppID>] = [:]
    /// Apps with a pending PiP restore deadline (P6).
    private(set) var restoring: Set<AppID> = []

    init() {}

    /// The index of `state`, built from scratch: O(nodes + apps + camera systems).
    init(_ state: ClusterState) {
        for (id, app) in state.apps where app.scene.isRunning { runningByDevice[id.device, default: []].append(id) }
        for id in state.apps.keys { installedByDevice[id.device, default: []].append(id) }
        for key in installedByDevice.keys { installedByDevice[key]?.sort() }
        for key in runningByDevice.keys { runningByDevice[key]?.sort() }
        for (id, node) in state.nodes where node.kind == .display {
            if let device = node.attachedTo { displaysByDevice[device, default: []].append(id) }
        }
        for key in displaysByDevice.keys { displaysByDevice[key]?.sort() }
        for (id, node) in state.nodes {
            if let device = Self.configuredDevice(of: node.registration) { displaysConfiguredFor[device, default: []].append(id) }
        }
        for key in displaysConfiguredFor.keys { displaysConfiguredFor[key]?.sort() }
        for id in state.cameraSystems.keys { systemsByHost[id.host, default: []].append(id) }
        for key in systemsByHost.keys { systemsByHost[key]?.sort() }
        for (id, app) in state.apps {
            if let camera = app.session?.configuration.camera { sessionsByCameraHost[camera.host, default: []].insert(id) }
            if app.pip?.restoreDeadline != nil { restoring.insert(id) }
        }
    }

    // MARK: Queries

    /// The running apps of a device, in id order.
    func runningApps(of device: NodeID) -> [AppID] { runningByDevice[device] ?? [] }

    /// Every app installed on a device, in id order.
    func installedApps(of device: NodeID) -> [AppID] { installedByDevice[device] ?? [] }

    /// The displays attached to a device, in id order (as `ClusterState.attachedDisplays(device:)`).
    func attachedDisplays(device: NodeID) -> [NodeID] { displaysByDevice[device] ?? [] }

    /// The displays whose registration names `device`, attached or not, in id order.
    func displaysConfigured(for device: NodeID) -> [NodeID] { displaysConfiguredFor[device] ?? [] }

    /// The camera systems hosted by a node, in id order.
    func systems(hostedBy node: NodeID) -> [CameraSystemID] { systemsByHost[node] ?? [] }

    /// The apps whose capture session is configured for a camera hosted by `node`, unordered.
    func sessionApps(cameraHost node: NodeID) -> Set<AppID> { sessionsByCameraHost[node] ?? [] }

    // MARK: Keeping in step

    /// An app started (`running`) or stopped running.
    mutating func noteRunning(_ id: AppID, _ running: Bool) {
        if running {
            Self.insertSorted(id, into: &runningByDevice[id.device, default: []])
        } else {
            runningByDevice[id.device]?.removeAll { $0 == id }
            if runningByDevice[id.device]?.isEmpty == true { runningByDevice[id.device] = nil }
        }
    }

    /// An app was installed.
    mutating func noteInstalled(_ id: AppID) {
        Self.insertSorted(id, into: &installedByDevice[id.device, default: []])
    }

    mutating func addSystem(_ id: CameraSystemID) {
        Self.insertSorted(id, into: &systemsByHost[id.host, default: []])
    }

    /// A display's `attachedTo` changed from `old` to `new`.
    mutating func moveDisplay(_ display: NodeID, from old: NodeID?, to new: NodeID?) {
        guard old != new else { return }
        if let old {
            displaysByDevice[old]?.removeAll { $0 == display }
            if displaysByDevice[old]?.isEmpty == true { displaysByDevice[old] = nil }
        }
        if let new { Self.insertSorted(display, into: &displaysByDevice[new, default: []]) }
    }

    /// A node (re-)registered: `old` is its registration before (nil for a new node).
    mutating func noteRegistration(_ node: NodeID, from old: NodeRegistration?, to new: NodeRegistration) {
        let before = old.flatMap(Self.configuredDevice(of:)), after = Self.configuredDevice(of: new)
        guard before != after else { return }
        if let before {
            displaysConfiguredFor[before]?.removeAll { $0 == node }
            if displaysConfiguredFor[before]?.isEmpty == true { displaysConfiguredFor[before] = nil }
        }
        if let after { Self.insertSorted(node, into: &displaysConfiguredFor[after, default: []]) }
    }

    /// The device a display's registration names, if it is a display's and names one.
    private static func configuredDevice(of registration: NodeRegistration) -> NodeID? {
        if case .display(let display) = registration.attributes { display.attachedTo } else { nil }
    }

    /// An app's session moved from a camera of `old` to one of `new` (nil: no session).
    mutating func moveSession(_ app: AppID, from old: NodeID?, to new: NodeID?) {
        guard old != new else { return }
        if let old {
            sessionsByCameraHost[old]?.remove(app)
            if sessionsByCameraHost[old]?.isEmpty == true { sessionsByCameraHost[old] = nil }
        }
        if let new { sessionsByCameraHost[new, default: []].insert(app) }
    }

    /// An app got a restore deadline (P6).
    mutating func noteRestoring(_ app: AppID) { restoring.insert(app) }

    /// An app's restore deadline was cleared (or its PiP record dropped).
    mutating func noteRestoreEnded(_ app: AppID) { restoring.remove(app) }

    private static func insertSorted<T: Comparable>(_ element: T, into array: inout [T]) {
        var low = 0, high = array.count
        while low < high {
            let mid = (low + high) / 2
            if array[mid] < element { low = mid + 1 } else { high = mid }
        }
        if low < array.count && array[low] == element { return }
        array.insert(element, at: low)
    }
}
