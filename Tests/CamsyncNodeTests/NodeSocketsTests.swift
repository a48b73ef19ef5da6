import CamsyncNodeProcess
import Testing

@Suite struct NodeSocketsTests {
    @Test("libzmq's reconnect: a fifth of the heartbeat interval (≥ 100 ms), doubling to 4 times that (≥ 2 s), inside the liveness timeout")
    func reconnectFollowsTheHeartbeatInterval() {
        #expect(NodeSockets.reconnectMilliseconds(heartbeatInterval: 200) == (100, 2_000))
        #expect(NodeSockets.reconnectMilliseconds(heartbeatInterval: 500) == (100, 2_000))
        #expect(NodeSockets.reconnectMilliseconds(heartbeatInterval: 2_000) == (400, 2_000))
        #expect(NodeSockets.reconnectMilliseconds(heartbeatInterval: 5_000) == (1_000, 4_000))
        // From a fleet's interval up, the last attempt (the most plus up to the first again at random)
        // comes before a node silent for 3 intervals would be declared dead.
        for interval in [Int64(2_000), 5_000, 10_000, 30_000] {
            let reconnect = NodeSockets.reconnectMilliseconds(heartbeatInterval: interval)
            #expect(Int64(reconnect.most + reconnect.first) < 3 * interval)
        }
    }
}
