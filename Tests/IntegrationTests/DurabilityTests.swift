import CamsyncProcessLab
import CamsyncPolicy
import CamsyncTestSupport
import CamsyncWire
import Foundation
import Glibc
import Synchronization
import Testing
import ZeroMQ

/// K3: a coordinator killed mid-traffic and restarted on the same data dir loses nothing it acknowledged.
@Suite(.ownThreads, .clusterSlot, .serialized, .timeLimit(.minutes(3)))
struct DurabilityTests {
    @Test("K3: acknowledged state, higher term, increasing tokens (C8), R1 alert not shown again")
    func coordinatorRestart() async throws {
        try await withCluster { cluster in
            // R1: a recording while ipad-1 multitasks shows the alert once.
            let left = StageWindow(screen: "ipad-1", frame: Frame(x: 0, y: 0, width: 600, height: 600))
            let right = StageWindow(screen: "ipad-1", frame: Frame(x: 600, y: 0, width: 600, height: 600))
            try cluster.act("ipad-1", [
                .stageOpen(Apps.recorder1, left), .stageOpen(Apps.notes1, right),
                .configureSession(Apps.recorder1, SessionConfiguration(
                    camera: Apps.front1, multitaskingCameraAccessEnabled: true, outputs: [.videoData, .movieFile])),
                .startSession(Apps.recorder1), .startRecording(Apps.recorder1, .movieFile), .stopRecording(Apps.recorder1),
            ])
            try cluster.waitForAgreement()
            #expect(try cluster.appEvents("ipad-1", Apps.recorder1).filter { $0 == "recordingQualityAlert" }.count == 1)
            let before = try cluster.coordinatorState()
            let tokenBefore = try #require(before.state.cameraSystems[Apps.builtIn1]?.lastToken)

            // Traffic from ipad-2 while the coordinator is killed: every acknowledged command must survive.
            let acknowledged = Mutex<[UInt64]>([])
            let stop = Mutex(false)
            let traffic = try JoinableThreadBox {
                guard let control = try? cluster.controlClient("ipad-2") else { return }
                defer { control.close() }
                var open = true
                while !stop.withLock({ $0 }) {
                    let command: Command = open ? .openFullScreen(Apps.notes2, trigger: .user) : .goHome(device: "ipad-2")
                    if let sequence = try? control.act(command, timeoutMilliseconds: 3_000) {
                        acknowledged.withLock { $0.append(sequence) }
                        open.toggle()
                    }
                }
            }
            try cluster.waitUntil(timeout: 10, what: "some traffic to be acknowledged") { acknowledged.withLock { $0.count } >= 5 }
            cluster.signalCoordinator(SIGKILL)
            try cluster.startCoordinator()
            try cluster.waitUntil(timeout: 15, what: "traffic to flow again after the restart") {
                acknowledged.withLock { $0.count } >= 10
            }
            stop.withLock { $0 = true }
            traffic.join()

            let after = try cluster.coordinatorState()
            #expect(after.term > before.term, "the term increments on every start")
            let acked = acknowledged.withLock { $0 }
            #expect(acked.max()! <= after.sequence, "every acknowledged sequence is in the restarted coordinator's log")
            #expect(after.state.recordingAlertShown.contains("ipad-1"), "R1's fact survives the restart")

            // Tokens keep increasing across the restart (C8), and the alert is not shown again (R1).
            try cluster.act("ipad-1", [
                .stopSession(Apps.recorder1), .startSession(Apps.recorder1),
                .startRecording(Apps.recorder1, .movieFile), .stopRecording(Apps.recorder1),
            ])
            try cluster.waitForAgreement(timeout: 15)
            let final = try cluster.coordinatorState()
            #expect(try #require(final.state.cameraSystems[Apps.builtIn1]?.lastToken) > tokenBefore)
            #expect(try cluster.appEvents("ipad-1", Apps.recorder1).filter { $0 == "recordingQualityAlert" }.count == 1)
            // Nodes resynced without restarting.
            #expect(cluster.nodes.values.allSatisfy { $0.isRunning })
        }
    }
}

/// A thread for background traffic inside a test body.
final class JoinableThreadBox: @unchecked Sendable {
    private let thread: JoinableThread
    init(_ body: @escaping @Sendable () -> Void) throws { thread = try JoinableThread(body) }
    func join() { thread.join() }
}
