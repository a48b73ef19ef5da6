import CamsyncPolicy
import CamsyncWire
import Testing

/// The groups' last sequences as batches name them and snapshots keep them.
@Suite struct GroupSequencesTests {
    @Test("advancing names each group's previous batch and moves it on; the wire form round-trips sorted")
    func advance() throws {
        var sequences = GroupSequences()
        #expect(sequences.advance(["ipad-1"], to: 1).map(\.sequence) == [0])
        #expect(sequences.advance(["ipad-1", "tv"], to: 2).map { "\($0.group)@\($0.sequence)" } == ["ipad-1@1", "tv@0"])
        #expect(sequences.advance(["tv"], to: 5).map(\.sequence) == [2])
        #expect(sequences["ipad-1"] == 2 && sequences["tv"] == 5 && sequences["ipad-9"] == 0)
        #expect(sequences.wire.map(\.group) == ["ipad-1", "tv"])
        #expect(try GroupSequences(wire: sequences.wire) == sequences)
    }

    @Test("a group named twice, an empty one or one with a zero byte is refused", arguments: [
        [("a", UInt64(1)), ("a", 2)], [("", 1)], [("ipad\u{0}1", 1)],
    ] as [[(String, UInt64)]])
    func refused(_ entries: [(String, UInt64)]) {
        let wire = entries.map { entry in Camsync_V1_GroupSequence.with { $0.group = entry.0; $0.sequence = entry.1 } }
        #expect(throws: WireMappingError.self) { try GroupSequences(wire: wire) }
    }

    @Test("no node's feed is the prefix of another's, nor of every batch's topic", arguments: [("ipad-1", "ipad-10"), ("a", "ab"), ("tv", "tv.2"), ("all", "al")])
    func topicsArePrefixFree(_ pair: (NodeID, NodeID)) {
        #expect(!EventTopic.node(pair.1).hasPrefix(EventTopic.node(pair.0)))
        #expect(!EventTopic.node(pair.0).hasPrefix(EventTopic.node(pair.1)))
        for node in [pair.0, pair.1] {
            #expect(!EventTopic.everyBatch.hasPrefix(EventTopic.node(node)) && !EventTopic.node(node).hasPrefix(EventTopic.everyBatch))
            #expect(!EventTopic.node(node).hasPrefix(EventTopic.heartbeat))
        }
    }
}
