import CamsyncPolicy
import CamsyncWire
import Testing
@testable import CamsyncCoordinator
@testable import CamsyncCoordinatorCore

/// Device groups in the coordinator: every batch is pushed to each node of each group it touches
/// (on its own connection) and published once on `all`, naming each group's previous batch; the groups' last sequences survive a restart from a snapshot
/// and the journal (docs/PROTOCOL.md "Device groups").
@Suite struct CoordinatorGroupTests {
    typealias R = CoordinatorReceiveTests
    static let display = DisplayAttributes(name: "TV", attachedTo: nil, cameras: [CameraSpec(name: "cam", position: .external)])

    /// One admin command as a whole turn; its batch and the nodes' feeds it was pushed on (it also goes
    /// out once on `all`, checked here; each push goes to the route of the node whose feed it names).
    static func run(_ core: inout CoordinatorCore, _ command: Command, id: UInt64) -> (batch: Camsync_V1_EventBatch?, topics: [String], actions: [CoordinatorAction]) {
        let actions = core.receiveTurn(R.frame(.request(command, sender: "admin", requestID: id), route: Array("admin".utf8)),
                                       at: R.at(Int64(id)))
        var batch: Camsync_V1_EventBatch?
        var topics: [String] = []
        var everyBatch = 0
        for action in actions {
            switch action {
            case .push(let route, let topic, let publication):
                guard case .eventBatch(let published)? = publication.envelope.body else { continue }
                #expect(batch == nil || batch == published, "every feed carries the same batch")
                #expect(EventTopic.node(NodeID(String(decoding: route, as: UTF8.self))) == topic, "pushed to the feed's own node")
                batch = published
                topics.append(topic)
            case .publish(EventTopic.everyBatch, let publication):
                if case .eventBatch? = publication.envelope.body { everyBatch += 1 }
            default:
                continue
            }
        }
        #expect(everyBatch == (batch == nil ? 0 : 1), "every batch once on 'all'")
        return (batch, topics, actions)
    }

    static func groups(_ batch: Camsync_V1_EventBatch?) -> [String: UInt64] {
        Dictionary(uniqueKeysWithValues: (batch?.groups ?? []).map { ($0.group, $0.sequence) })
    }

    static func displayRegistration(_ id: NodeID, attachedTo device: NodeID?) -> Command {
        var attributes = display
        attributes.attachedTo = device
        return .registerNode(NodeRegistration(node: id, attributes: .display(attributes)))
    }

    @Test("each batch names its groups' previous batches and goes out once on the feed of each node of its groups, on terminated topics")
    func batchesNameTheirGroups() {
        var core = R.core()
        var run = Self.run(&core, CoordinatorCoreTests.register("ipad-1"), id: 1)
        #expect(run.topics == ["ev.ipad-1\u{0}"] && Self.groups(run.batch) == ["ipad-1": 0])
        run = Self.run(&core, CoordinatorCoreTests.register("ipad-10"), id: 2)
        #expect(run.topics == ["ev.ipad-10\u{0}"] && Self.groups(run.batch) == ["ipad-10": 0])
        #expect(!run.topics[0].hasPrefix(EventTopic.node("ipad-1")), "one device's topic is not the prefix of another's")
        run = Self.run(&core, Self.displayRegistration("tv", attachedTo: "ipad-1"), id: 3)
        #expect(Set(run.topics) == ["ev.ipad-1\u{0}", "ev.tv\u{0}"])
        #expect(Self.groups(run.batch) == ["ipad-1": 1, "tv": 0])
        run = Self.run(&core, .attachDisplay(display: "tv", device: "ipad-10"), id: 4)
        #expect(Self.groups(run.batch) == ["ipad-1": 3, "ipad-10": 2], "the group it left and the one it joined")
        #expect(run.topics == ["ev.ipad-1\u{0}", "ev.ipad-10\u{0}", "ev.tv\u{0}"], "each node of both groups, the display once")
        run = Self.run(&core, .installApp(device: "ipad-10", AppSpec(bundleID: "com.example.video")), id: 5)
        #expect(run.topics == ["ev.ipad-10\u{0}", "ev.tv\u{0}"] && Self.groups(run.batch) == ["ipad-10": 4],
                "the display attached to ipad-10 hears its group on its own feed")
        #expect(core.groupSequences["ipad-1"] == 4 && core.groupSequences["ipad-10"] == 5 && core.groupSequences["tv"] == 3)
    }

    @Test("bookmarks go to the nodes of each group there is now: none for the group a display had before it attached")
    func bookmarksOfGroupsThatAre() {
        var core = R.core()
        _ = Self.run(&core, CoordinatorCoreTests.register("ipad-1"), id: 1)
        _ = Self.run(&core, Self.displayRegistration("tv", attachedTo: nil), id: 2)
        _ = Self.run(&core, .attachDisplay(display: "tv", device: "ipad-1"), id: 3)
        #expect(core.groupSequences["tv"] == 3, "the group the display left keeps its last sequence (it may detach again)")
        // Both groups the attach's batch touched are due in the two heartbeat intervals after it
        // (BookmarkSchedule), each node's at its slot of the interval (HeartbeatSlots).
        var bookmarks: [(topic: String, group: String)] = []
        let interval = core.settings.heartbeatIntervalMilliseconds, slot = interval / Int64(HeartbeatSlots.count)
        for at in stride(from: interval, to: 3 * interval, by: Int(slot)) {
            for case .push(_, let topic, let publication) in core.tickTurn(at: R.at(at + 10)) {
                if case .groupBookmark(let bookmark)? = publication.envelope.body { bookmarks.append((topic, bookmark.group)) }
            }
        }
        #expect(bookmarks.contains { $0 == ("ev.tv\u{0}", "ipad-1") } && bookmarks.contains { $0 == ("ev.ipad-1\u{0}", "ipad-1") }, "\(bookmarks)")
        // The display would take "tv" on its feed for a move it never heard, and ask for a snapshot.
        #expect(!bookmarks.contains { $0.group == "tv" }, "\(bookmarks)")
    }

    @Test("K3: a coordinator restarted from its snapshot and journal names the same previous batches")
    func groupSequencesSurviveARestart() throws {
        var core = R.core(snapshotEvery: 2)
        var entries: [JournalEntry] = []
        var snapshot: JournalSnapshot?
        let commands: [Command] = [CoordinatorCoreTests.register("ipad-1"), CoordinatorCoreTests.register("ipad-2"),
                                   Self.displayRegistration("tv", attachedTo: "ipad-1"), .detachDisplay(display: "tv")]
        for (index, command) in commands.enumerated() {
            let actions = Self.run(&core, command, id: UInt64(index + 1)).actions
            entries += R.appends(actions)
            for case .writeSnapshot(let written, _, _) in actions { snapshot = written }
        }
        let written = try #require(snapshot)
        #expect(written.sequence == 4)
        let restarted = try CoordinatorRecovery.rebuild(settings: core.settings, term: 8, snapshot: written, entries: entries).core
        #expect(restarted.groupSequences == core.groupSequences)
        let fromJournalOnly = try CoordinatorRecovery.rebuild(settings: core.settings, term: 8, snapshot: nil, entries: entries).core
        #expect(fromJournalOnly.groupSequences == core.groupSequences, "replaying the commands names the same groups")
        #expect(core.groupSequences["ipad-1"] == 4 && core.groupSequences["tv"] == 4 && core.groupSequences["ipad-2"] == 2)
    }
}
