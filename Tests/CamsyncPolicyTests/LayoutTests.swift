import Testing
@testable import CamsyncPolicy

/// L1–L6 (seeds 000, 003).
@Suite struct LayoutTests {
    let ipad: NodeID = "ipad"
    var notes: AppID { .on(ipad, Apps.notes) }
    var video: AppID { .on(ipad, Apps.video) }
    var scanner: AppID { .on(ipad, Apps.scanner) }

    /// L1 — seed 003: opening an app full screen sends the apps it replaces to the background; Slide Over stays.
    @Test func l1_fullScreenReplacesSplitPair() {
        var h = Harness()
        h.ok(.registerNode(deviceRegistration(ipad)))
        h.ok(.openFullScreen(notes, trigger: .user))
        h.ok(.split(video, side: .right))
        h.ok(.slideOver(scanner))
        #expect(h.state.apps[notes]?.scene == .splitPrimary)
        #expect(h.state.apps[video]?.scene == .splitSecondary)
        h.ok(.openFullScreen(.on(ipad, Apps.call), trigger: .user))
        #expect(h.state.apps[notes]?.scene == .background)
        #expect(h.state.apps[video]?.scene == .background)
        #expect(h.state.apps[scanner]?.scene == .slideOver)
        #expect(h.state.visibleApps(device: ipad) == [.on(ipad, Apps.call), scanner].sorted())
    }

    struct DirectionCase: Sendable { var direction: LayoutDirection; var side: SplitSide; var scene: Scene }

    /// L2 — seed 003: the primary is the left app, the right one in RTL.
    @Test(arguments: [
        DirectionCase(direction: .leftToRight, side: .left, scene: .splitPrimary),
        DirectionCase(direction: .leftToRight, side: .right, scene: .splitSecondary),
        DirectionCase(direction: .rightToLeft, side: .right, scene: .splitPrimary),
        DirectionCase(direction: .rightToLeft, side: .left, scene: .splitSecondary),
    ])
    func l2_primaryFollowsLayoutDirection(_ c: DirectionCase) {
        var h = Harness()
        h.ok(.registerNode(deviceRegistration(ipad, direction: c.direction)))
        h.ok(.openFullScreen(notes, trigger: .user))
        h.ok(.split(video, side: c.side))
        #expect(h.state.apps[video]?.scene == c.scene)
        #expect(h.state.computedRole(of: video) == (c.scene == .splitPrimary ? .primary : .secondary))
    }

    /// L2, L5 — seed 003: a full-screen app stays primary when a Slide Over app appears over it.
    @Test func l2_l5_fullScreenStaysPrimaryUnderSlideOver() {
        var h = Harness()
        h.ok(.registerNode(deviceRegistration(ipad)))
        h.ok(.openFullScreen(notes, trigger: .user))
        let events = h.ok(.slideOver(video))
        #expect(h.state.apps[notes]?.role == .primary)
        #expect(h.state.apps[video]?.role == .secondary)
        #expect(!events.contains(.roleChanged(notes, .secondary)))
        // Changing the layout direction swaps which split app is primary.
        h.ok(.split(scanner, side: .left))
        #expect(h.state.apps[scanner]?.role == .primary)
        h.ok(.setLayoutDirection(device: ipad, .rightToLeft))
        #expect(h.state.apps[scanner]?.role == .secondary)
        #expect(h.state.apps[notes]?.role == .primary)
    }

    /// L3 — seed 000: Stage Manager windows per screen are limited; windows move between the device and a display;
    /// detaching the display brings them back.
    @Test func l3_stageWindowsLimitMoveAndDetach() {
        var h = Harness(settings: PolicySettings(stageWindowLimitPerScreen: 2))
        h.ok(.registerNode(deviceRegistration(ipad, stageManager: true)))
        h.ok(.registerNode(displayRegistration("tv", attachedTo: ipad)))
        let frame = Frame(x: 0, y: 0, width: 500, height: 400)
        h.ok(.stageOpen(notes, StageWindow(screen: ipad, frame: frame)))
        h.ok(.stageOpen(video, StageWindow(screen: ipad, frame: frame)))
        #expect(h.reject(.stageOpen(scanner, StageWindow(screen: ipad, frame: frame)))?.code == .stageWindowLimit)
        h.ok(.stageMove(video, StageWindow(screen: "tv", frame: frame)))
        h.ok(.stageOpen(scanner, StageWindow(screen: ipad, frame: frame)))
        #expect(h.reject(.stageOpen(.on(ipad, Apps.call), StageWindow(screen: "nowhere", frame: frame)))?.code == .unknownNode)
        let detach = h.ok(.detachDisplay(display: "tv"))
        #expect(detach.contains(.sceneChanged(video, from: .stageWindow(StageWindow(screen: "tv", frame: frame)),
                                              to: .stageWindow(StageWindow(screen: ipad, frame: frame)))))
        #expect(h.reject(.stageMove(video, StageWindow(screen: "tv", frame: frame)))?.code == .displayNotAttached)
        h.ok(.setStageManager(device: ipad, enabled: false))
        #expect(h.state.visibleApps(device: ipad).isEmpty)
        #expect(h.reject(.stageOpen(notes, StageWindow(screen: ipad, frame: frame)))?.code == .stageManagerOff)
    }

    /// L4 — seeds 000, 003: a requiresFullScreen app is never split, slid over or a stage window.
    @Test(arguments: ["split", "slideOver", "stage", "partner"])
    func l4_requiresFullScreenIsRefused(_ kind: String) {
        var h = Harness()
        h.ok(.registerNode(deviceRegistration(ipad, stageManager: kind == "stage")))
        let fullOnly = AppID.on(ipad, Apps.fullOnly)
        let command: Command
        switch kind {
        case "split": h.ok(.openFullScreen(notes, trigger: .user)); command = .split(fullOnly, side: .left)
        case "slideOver": command = .slideOver(fullOnly)
        case "stage": command = .stageOpen(fullOnly, StageWindow(screen: ipad, frame: Frame(x: 0, y: 0, width: 10, height: 10)))
        default: h.ok(.openFullScreen(fullOnly, trigger: .user)); command = .split(notes, side: .left)
        }
        let rejection = h.reject(command)
        #expect(rejection?.code == .requiresFullScreen)
        #expect(rejection?.message.contains("requires full screen") == true)
    }

    /// L5, L6 — seeds 000, 002, 003: roles and multitasking count a PiP window's owner, but not a stashed one.
    @Test func l5_l6_rolesAndMultitaskingWithPiP() {
        var h = Harness()
        h.ok(.registerNode(deviceRegistration(ipad)))
        h.ok(.openFullScreen(video, trigger: .user))
        h.ok(.setupPiP(video, PiPControllerSetup(kind: .playback, playingVideoFillsWindow: true)))
        #expect(!h.state.isMultitasking(device: ipad))
        h.ok(.openFullScreen(notes, trigger: .user))  // P3: PiP starts automatically
        #expect(h.state.apps[video]?.role == .backgroundMedia)
        #expect(h.state.isMultitasking(device: ipad))
        h.ok(.stashPiP(video))
        #expect(!h.state.isMultitasking(device: ipad))
        #expect(h.state.visibleApps(device: ipad) == [notes])
        h.ok(.unstashPiP(video))
        h.ok(.closePiP(video))
        #expect(h.state.apps[video]?.role == .background)
        h.ok(.terminate(video))
        #expect(h.state.apps[video]?.role == nil)
    }
}
