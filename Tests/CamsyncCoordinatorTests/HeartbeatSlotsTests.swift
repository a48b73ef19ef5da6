import CamsyncPolicy
import CamsyncWire
import Testing
@testable import CamsyncCoordinatorCore

/// The leader's per-node messages spread over the heartbeat interval (docs/PROTOCOL.md "The feed"):
/// each node in one slot, no slot much fuller than the average, every node once an interval.
@Suite struct HeartbeatSlotsTests {
    typealias R = CoordinatorReceiveTests

    @Test("100, 1,017 and 10,000 nodes: every slot holds the average or one more, each node once; another term deals them again",
          arguments: [100, 1_017, 10_000])
    func slotsAreEven(count: Int) {
        let nodes = (1...count).map { NodeID("sim-\($0)") }
        for salt: UInt64 in [1, 2, 77] {
            let slots = HeartbeatSlots.deal(nodes, salt: salt)
            let sizes = slots.map(\.count), least = count / HeartbeatSlots.count
            #expect(sizes.allSatisfy { $0 == least || $0 == least + 1 }, "salt \(salt): \(sizes)")
            #expect(slots.flatMap { $0 }.sorted() == nodes.sorted(), "every node dealt once")
        }
        func slot(_ salt: UInt64) -> [NodeID: Int] {
            Dictionary(uniqueKeysWithValues: HeartbeatSlots.deal(nodes, salt: salt).enumerated().flatMap { k, slot in slot.map { ($0, k) } })
        }
        let (first, second) = (slot(1), slot(2))
        #expect(nodes.filter { first[$0] != second[$0] }.count > count / 2, "a new term deals the slots out again")
    }

    @Test("a new leader's first heartbeat reaches every node at once; then one an interval each, at its slot, on its own route; observers one on 'hb'")
    func oneHeartbeatPerNodePerInterval() {
        var core = R.core()
        let nodes = (1...200).map { NodeID("ipad-\($0)") }
        for (index, node) in nodes.enumerated() {
            _ = core.receiveTurn(R.frame(R.register(node), route: Array(node.rawValue.utf8)),
                                 at: R.at(Int64(index)))
        }
        let interval = core.settings.heartbeatIntervalMilliseconds, slot = interval / Int64(HeartbeatSlots.count)
        var heartbeats: [NodeID: Int] = [:]
        var perTick: [Int] = [], observed = 0
        // Two whole intervals from the first tick on, one tick a slot.
        for at in stride(from: Int64(1_000), to: 1_000 + 2 * interval, by: Int(slot)) {
            var inTick = 0
            for action in core.tickTurn(at: R.at(at)) {
                switch action {
                case .push(let route, EventTopic.heartbeat, let publication):
                    guard case .coordinatorHeartbeat? = publication.envelope.body else { continue }
                    heartbeats[NodeID(String(decoding: route, as: UTF8.self)), default: 0] += 1
                    inTick += 1
                case .publish(EventTopic.heartbeat, _):
                    observed += 1
                default:
                    continue
                }
            }
            perTick.append(inTick)
        }
        #expect(perTick.first == nodes.count, "the first interval: every node at once")
        #expect(Set(heartbeats.keys) == Set(nodes))
        #expect(heartbeats.values.allSatisfy { $0 == 2 }, "\(heartbeats.filter { $0.value != 2 })")
        #expect(observed == 2, "one on the event socket an interval")
        let busiest = perTick.dropFirst().max() ?? 0
        #expect(busiest <= nodes.count / HeartbeatSlots.count + 1, "the busiest slot after the first: \(busiest) of \(nodes.count)")
    }
}
