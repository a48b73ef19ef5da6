import CamsyncPolicy
import CamsyncTestSupport
import CamsyncWire
import Synchronization
import Testing
import ZeroMQ
import CamsyncClient

/// K4 and K5 across processes.
@Suite(.ownThreads, .clusterSlot, .serialized, .timeLimit(.minutes(3)))
struct OrderingTests {
    @Test("K4: two clients racing for one camera — one winner each time (the later start, C4), same order everywhere")
    func raceForOneCamera() async throws {
        try await withCluster { cluster in
            let left = StageWindow(screen: "ipad-1", frame: Frame(x: 0, y: 0, width: 600, height: 600))
            let right = StageWindow(screen: "ipad-1", frame: Frame(x: 600, y: 0, width: 600, height: 600))
            try cluster.act("ipad-1", [
                .stageOpen(Apps.recorder1, left), .stageOpen(Apps.scanner1, right),
                .configureSession(Apps.recorder1, SessionConfiguration(camera: Apps.front1, multitaskingCameraAccessEnabled: true)),
                .configureSession(Apps.scanner1, SessionConfiguration(camera: Apps.front1, multitaskingCameraAccessEnabled: true)),
            ])
            for round in 0..<15 {
                try cluster.act("ipad-1", [.stopSession(Apps.recorder1), .stopSession(Apps.scanner1)])
                // Two "users" start at the same instant through separate control connections.
                let sequences = Mutex<[AppID: UInt64]>([:])
                let racers = try [Apps.recorder1, Apps.scanner1].map { app in
                    try JoinableThreadBox {
                        guard let control = try? cluster.controlClient("ipad-1") else { return }
                        defer { control.close() }
                        if let sequence = try? control.act(.startSession(app)) { sequences.withLock { $0[app] = sequence } }
                    }
                }
                racers.forEach { $0.join() }
                let acked = sequences.withLock { $0 }
                #expect(acked.count == 2, "round \(round): both starts acknowledged")
                let later = try #require(acked.max { $0.value < $1.value }?.key)
                let state = try cluster.coordinatorState().state
                #expect(state.holder(of: Apps.builtIn1) == later, "round \(round): the later start preempts (C4)")
                let holders = [Apps.recorder1, Apps.scanner1].filter { state.sessionState(of: $0) == .running }
                #expect(holders.count == 1, "round \(round): exactly one session runs (C1)")
            }
            // Every replica applied the same commands in the same order (K4): identical states at one sequence.
            try cluster.waitForAgreement()
        }
    }

    @Test("K5: a command resent with the same request id is applied once and gets the original reply")
    func retriedCommandAppliedOnce() async throws {
        try await withCluster { cluster in
            // In lab mode (no keys) a client may speak for a node by name.
            let client = try CoordinatorClient(context: ZMQContext(), endpoint: cluster.commandEndpoint, sender: "ipad-2")
            defer { client.close() }
            let before = try cluster.coordinatorState().sequence
            let first = try client.send(.openFullScreen(Apps.notes2, trigger: .user), requestID: 4242)
            let second = try client.send(.openFullScreen(Apps.notes2, trigger: .user), requestID: 4242)
            #expect(first == second)
            #expect(first == before + 1)
            #expect(try cluster.coordinatorState().sequence == before + 1, "applied once")
            // A different request id is a new command (here: refused or applied, but never a replay of 4242).
            let third = try? client.send(.goHome(device: "ipad-2"), requestID: 4243)
            #expect(third == before + 2)
        }
    }
}
