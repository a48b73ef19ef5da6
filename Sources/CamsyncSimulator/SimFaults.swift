import CamsyncCoordinator
import CamsyncWorkload
import CamsyncPolicy
import CamsyncWire

/// What the seed does to the cluster while the workload runs, and how each fault ends.
enum Heal: CustomStringConvertible {
    case restartCoordinator(Int)
    case resumeCoordinator(Int)
    case restartNode(Int)
    case resumeNode(Int)
    case reconnect([SimNetwork.Link])
    case messages
    case store
    case watchCaughtUp

    var description: String {
        switch self {
        case .restartCoordinator(let c): "restart c\(c + 1)"
        case .resumeCoordinator(let c): "resume c\(c + 1)"
        case .restartNode(let n): "restart node \(n + 1)"
        case .resumeNode(let n): "resume node \(n + 1)"
        case .reconnect(let links): "partition healed (\(links.count / 2) link(s))"
        case .messages: "message faults end"
        case .store: "etcd healthy again"
        case .watchCaughtUp: "the log's watch caught up"
        }
    }
}

extension Simulation {

    /// The coordinator that leads now, if one does.
    var leaderIndex: Int? { coordinators.firstIndex { $0.running && $0.core?.role.isLeading == true } }

    private func count(_ kind: String) {
        faultCounts[kind, default: 0] += 1
    }

    func injectFault() {
        let ha = options.mode == .highAvailability
        let kinds = ["kill-leader", "pause-leader", "kill-node", "pause-node", "partition-leader-nodes", "partition-node",
                     "lossy-network", "reorder", "slow-network", "join-storm", "join-storm", "slow-leader", "connection-drop", "connection-drop"]
            + (ha ? ["kill-coordinator", "partition-leader-store", "partition-leader-store", "store-quorum-lost", "store-slow",
                     "pause-leader", "stall-standby", "stall-standby"]
                  // In HA a stalled leader is suspected and deposed before it judges anyone's silence.
                  : ["stall-leader"])
        let kind = kinds[Int.random(in: 0..<kinds.count, using: &faultRNG)]
        let leader = leaderIndex ?? Int.random(in: 0..<coordinators.count, using: &faultRNG)
        let n = Int.random(in: 0..<nodes.count, using: &faultRNG)
        let lasting = randomDelay(300_000...4_000_000)
        switch kind {
        case "kill-leader", "kill-coordinator":
            let c = kind == "kill-leader" ? leader : Int.random(in: 0..<coordinators.count, using: &faultRNG)
            guard coordinators[c].running else { return }
            crashCoordinator(c)
            disturb(.coordinator(c))
            scheduler.schedule(.heal(.restartCoordinator(c)), at: now + lasting)
        case "pause-leader":
            guard coordinators[leader].running, coordinators[leader].pausedUntil <= now else { return }
            // Long enough, often, for the lease to run out while it is stopped (SIGSTOP).
            coordinators[leader].pausedUntil = now + randomDelay(500_000...6_000_000)
            disturb(.coordinator(leader), until: coordinators[leader].pausedUntil)
            scheduler.schedule(.heal(.resumeCoordinator(leader)), at: coordinators[leader].pausedUntil)
        case "kill-node":
            guard nodes[n].running else { return }
            crashNode(n)
            disturb(.node(n))
            scheduler.schedule(.heal(.restartNode(n)), at: now + lasting)
        case "pause-node":
            guard nodes[n].running, nodes[n].pausedUntil <= now else { return }
            nodes[n].pausedUntil = now + lasting
            disturb(.node(n), until: nodes[n].pausedUntil)
            scheduler.schedule(.heal(.resumeNode(n)), at: nodes[n].pausedUntil)
        case "partition-leader-nodes":
            cut([.coordinator(leader)], from: nodes.indices.map { .node($0) } + clients.indices.map { .client($0) }, for: lasting)
        case "partition-node":
            cut([.node(n)], from: coordinators.indices.map { .coordinator($0) }, for: lasting)
        case "partition-leader-store":
            cut([.coordinator(leader)], from: [.store], for: lasting)
        case "lossy-network":
            network.dropRate = 0.05
            network.duplicateRate = 0.03
            disturbEveryone(until: now + lasting)
            scheduler.schedule(.heal(.messages), at: now + lasting)
        case "reorder":
            network.reorder = true
            disturbEveryone(until: now + lasting)
            scheduler.schedule(.heal(.messages), at: now + lasting)
        case "slow-network":
            network.extraDelay = randomDelay(5_000...150_000)
            disturbEveryone(until: now + lasting)
            scheduler.schedule(.heal(.messages), at: now + lasting)
        case "join-storm":
            // Every node process restarted at once (a fleet rolled out, a power cut): each registers
            // and asks for its snapshot within the same two milliseconds. The coordinators are not
            // disturbed: a leader must come through it leading.
            for m in nodes.indices where nodes[m].running {
                crashNode(m)
                disturb(.node(m))
                scheduler.schedule(.heal(.restartNode(m)), at: now + randomDelay(0...2_000))
            }
        case "slow-leader":
            // The leader's machine starved of CPU: all its work takes 5–50 times as long for a while.
            guard coordinators[leader].running else { return }
            coordinators[leader].slowdown = randomDelay(5...50)
            coordinators[leader].slowUntil = now + lasting
            disturb(.coordinator(leader), until: now + lasting)
        case "connection-drop":
            // One node's connections break and come back (a TCP reset): what the coordinators push and
            // answer meanwhile is lost to it, what it sends is not. Its replica must notice the gap,
            // its requests are retried.
            guard nodes[n].running else { return }
            nodes[n].connectionDownUntil = now + randomDelay(20_000...600_000)
            disturb(.node(n), until: nodes[n].connectionDownUntil)
        case "stall-leader":
            // The leader's thread descheduled for up to a second while it works (a starved machine):
            // the nodes' heartbeats arrive meanwhile and wait. It may lose its leadership (its pulse is
            // late), but it must not declare a node dead whose heartbeat waits to be read (K7): the
            // nodes are not disturbed.
            guard coordinators[leader].running else { return }
            // After its frames, before its tick: where the heartbeats it has not read are at stake.
            coordinators[leader].stalling = (now + lasting, [.frames, .pulses])
            stalledUntil[leader] = max(stalledUntil[leader] ?? 0, now + lasting + 1_200_000)
        case "stall-standby":
            // A standby's thread descheduled for up to a second while it works (a starved machine): the
            // leader's pulses arrive meanwhile and wait; the standby must hear them before it judges
            // the leader's silence. The leader is not disturbed: it must keep leading.
            let standbys = coordinators.indices.filter { $0 != leaderIndex && coordinators[$0].running }
            guard !standbys.isEmpty else { return }
            let c = standbys[Int.random(in: 0..<standbys.count, using: &faultRNG)]
            coordinators[c].stalling = (now + lasting, [.news, .answers, .frames])
            disturb(.coordinator(c), until: now + lasting + 1_200_000)
        case "store-quorum-lost":
            store.available = false
            for c in coordinators.indices { storeLost(c) }
            disturbEveryone(until: now + lasting)
            scheduler.schedule(.heal(.store), at: now + lasting)
        case "store-slow":
            store.slowBy = randomDelay(20_000...600_000)
            disturbEveryone(until: now + lasting)
            scheduler.schedule(.heal(.store), at: now + lasting)
        default:
            return
        }
        count(kind)
        trace.note(now, "fault \(kind) (leader c\(leader + 1), node \(nodes[n].config.id), \(SimTrace.clock(lasting)) s)")
    }

    private func cut(_ a: [SimNetwork.Endpoint], from b: [SimNetwork.Endpoint], for lasting: Int64) {
        var links: [SimNetwork.Link] = []
        for x in a {
            for y in b {
                links += [SimNetwork.Link(from: x, to: y), SimNetwork.Link(from: y, to: x)]
            }
        }
        network.cuts.formUnion(links)
        for endpoint in a + b { disturb(endpoint, until: now + lasting) }
        for c in coordinators.indices where !network.connected(.coordinator(c), .store) { storeLost(c) }
        scheduler.schedule(.heal(.reconnect(links)), at: now + lasting)
    }

    func apply(_ heal: Heal) {
        switch heal {
        case .restartCoordinator(let c):
            if !coordinators[c].running { startCoordinator(c) }
        case .resumeCoordinator(let c):
            if coordinators[c].running { runCoordinator(c) }
        case .restartNode(let n):
            if !nodes[n].running { startNode(n) }
        case .resumeNode:
            break
        case .reconnect(let links):
            network.cuts.subtract(links)
        case .messages:
            network.dropRate = 0
            network.duplicateRate = 0
            network.reorder = false
            network.extraDelay = 0
        case .store:
            store.available = true
            store.slowBy = 0
        case .watchCaughtUp:
            watchFaults.lag = [:]
        }
        trace.note(now, "heal \(heal)")
    }

    /// Faults end: every process runs, every link works; the workload stops taking new commands and
    /// the cluster gets the liveness phase to converge.
    func endFaults() {
        faultPhase = false
        network.heal()
        store.available = true
        store.slowBy = 0
        watchFaults.lag = [:]
        watchFaults.crashAfterCommit = nil
        for c in coordinators.indices {
            if !coordinators[c].running { startCoordinator(c) }
            coordinators[c].pausedUntil = min(coordinators[c].pausedUntil, now)
        }
        for n in nodes.indices {
            if !nodes[n].running { startNode(n) }
            nodes[n].pausedUntil = min(nodes[n].pausedUntil, now)
        }
        for c in coordinators.indices { runCoordinator(c) }
        trace.note(now, "faults end; liveness phase")
        // Half-way through, a fresh camera claim must be granted.
        scheduler.schedule(.call { [unowned self] in freshClaim() }, at: now + Int64(options.livenessSeconds * 400_000))
    }

    // MARK: Oracle

    /// Marks `endpoint` as disturbed until `until` (a K7 false death near a disturbance is no proof).
    func disturb(_ endpoint: SimNetwork.Endpoint, until: Int64? = nil) {
        disturbedUntil[endpoint] = max(disturbedUntil[endpoint] ?? 0, until ?? now)
    }

    private func disturbEveryone(until: Int64) {
        everyoneDisturbedUntil = max(everyoneDisturbedUntil, until)
    }

    /// K7: a node declared dead that was running, undisturbed and connected the whole time, by a
    /// leader that was undisturbed too, is a false declaration.
    func checkDeclaration(by c: Int, of node: NodeID) {
        guard let n = nodes.firstIndex(where: { $0.config.id == node }) else { return }
        let window = settings.livenessTimeoutMilliseconds * 1000 * 3
        let quietSince = now - window
        let disturbed = [disturbedUntil[.node(n)], disturbedUntil[.coordinator(c)], everyoneDisturbedUntil]
            .compactMap { $0 }.max() ?? 0
        guard nodes[n].running, disturbed < quietSince, !nodes[n].startedRecently(now: now, window: window) else { return }
        violation("K7: \(coordinators[c].name) declared \(node) dead, though it ran and was reachable for the last \(window / 1000) ms")
    }

    /// The liveness phase's claim: the user goes home on ipad-1 (whatever held its camera from a
    /// window is no longer visible), opens Camera.app and starts a fresh session.
    private func freshClaim() {
        let device = NodeID(SoakTopology.devices[0])
        let camera = AppID(device: device, bundleID: "com.apple.camera")
        clients[0].script = [
            (device, .setPressure(.builtIn(device: device), .nominal)),
            (device, .goHome(device: device)),
            (device, .openFullScreen(camera, trigger: .user)),
            (device, .stopSession(camera)),
            (device, .configureSession(camera, SessionConfiguration(camera: CameraID(host: device, name: "front")))),
            (device, .startSession(camera)),
        ]
        clients[0].stopped = false
        if clients[0].current == nil { scheduleClient(0, after: 0) }
    }

    /// After the liveness phase: a leader, every node following it at its sequence with a byte-equal
    /// replica, and the fresh claim granted.
    func livenessChecks() {
        guard let c = leaderIndex, let core = coordinators[c].core else {
            violation("liveness: no coordinator leads \(options.livenessSeconds) s after the faults ended")
            return
        }
        for node in nodes where node.running {
            guard let session = node.session else { continue }
            if options.mode == .highAvailability, session.followed.commandEndpoint != SimTopology.commandEndpoint(c) {
                violation("liveness: \(node.config.id) follows \(session.followed.commandEndpoint), not the leader c\(c + 1)")
            }
            // Each node holds its device group's part of the state, at the group's last batch.
            guard let group = session.replica.group else {
                violation("liveness: \(node.config.id) holds no device group's replica")
                continue
            }
            if group != core.state.group(of: node.config.id) {
                violation("liveness: \(node.config.id) follows group \(group), the leader has it in \(core.state.group(of: node.config.id))")
            } else if session.replica.groupSequence != core.groupSequences[group] {
                violation("liveness: \(node.config.id) is at group \(group)'s batch \(session.replica.groupSequence), the leader at \(core.groupSequences[group])")
            } else if !session.replica.state.equalsGroupPart(core.engine.state(ofGroup: group)) {
                violation("liveness: \(node.config.id)'s replica differs from the leader's part of group \(group)")
            }
            if core.state.nodes[node.config.id]?.alive != true {
                violation("liveness: \(node.config.id) runs but the leader does not hold it alive")
            }
            // A display attaches to the device its config names once both are alive, and again after
            // that device rejoins (SPEC §1); the workload never detaches one.
            if case .display(let display) = node.config.registration.attributes, let device = display.attachedTo,
               let d = nodeIndex[device.rawValue], nodes[d].running, core.state.nodes[device]?.alive == true,
               core.state.nodes[node.config.id]?.attachedTo != device {
                violation("liveness: \(node.config.id) is not attached to \(device), though both run and are alive")
            }
        }
        let system = CameraSystemID.builtIn(device: NodeID(SoakTopology.devices[0]))
        let camera = AppID(device: NodeID(SoakTopology.devices[0]), bundleID: "com.apple.camera")
        if core.state.cameraSystems[system]?.holder != camera {
            let holder = core.state.cameraSystems[system]?.holder
            let app = core.state.apps[camera]
            violation("liveness: the fresh claim was not granted (\(system) held by \(holder.map { "\($0)" } ?? "nobody"); "
                      + "Camera.app: scene \(app.map { "\($0.scene)" } ?? "-"), session \(app?.session.map { "\($0)" } ?? "none"); "
                      + "holder: \(holder.flatMap { core.state.apps[$0] }.map { "scene \($0.scene), session \($0.session.map { "\($0)" } ?? "none")" } ?? "-"))")
        }
    }
}
