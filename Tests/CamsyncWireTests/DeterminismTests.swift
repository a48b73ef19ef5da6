import CamsyncRuntime
import CamsyncPolicy
import CamsyncWire
import SwiftProtobuf
import Testing

@Suite("Deterministic encoding")
struct DeterminismTests {
    @Test("same ClusterState → same bytes, whatever the insertion order")
    func clusterStateBytes() throws {
        let forward = Samples.clusterState()
        let backward = Samples.clusterState(reversed: true)
        #expect(forward == backward)
        let a: [UInt8] = try Camsync_V1_ClusterState(forward).serializedBytes()
        let b: [UInt8] = try Camsync_V1_ClusterState(backward).serializedBytes()
        let again: [UInt8] = try Camsync_V1_ClusterState(forward).serializedBytes()
        #expect(a == b)
        #expect(a == again)
        // A state rebuilt from the wire (fresh dictionaries) encodes the same, too.
        let rebuilt = try ClusterState(wire: Camsync_V1_ClusterState(serializedBytes: a))
        #expect(try Camsync_V1_ClusterState(rebuilt).serializedBytes() == a)
    }

    @Test("many insertion orders give one encoding")
    func shuffledInsertion() throws {
        let reference = Samples.clusterState()
        let expected: [UInt8] = try Camsync_V1_ClusterState(reference).serializedBytes()
        var rng = SplitMix64(seed: 7)
        for _ in 0..<50 {
            var state = ClusterState()
            for key in reference.nodes.keys.shuffled(using: &rng) { state.nodes[key] = reference.nodes[key] }
            for key in reference.apps.keys.shuffled(using: &rng) { state.apps[key] = reference.apps[key] }
            for key in reference.cameraSystems.keys.shuffled(using: &rng) { state.cameraSystems[key] = reference.cameraSystems[key] }
            for device in reference.recordingAlertShown.shuffled(using: &rng) { state.recordingAlertShown.insert(device) }
            state.ordinal = reference.ordinal
            #expect(try Camsync_V1_ClusterState(state).serializedBytes() == expected)
        }
    }

    @Test("snapshot envelopes of the same state are byte-identical")
    func snapshotEnvelope() {
        let a = Envelope.snapshot(Samples.clusterState(), sequence: 5, term: 1, requestID: 2, settings: PolicySettings()).serializedBytes()
        let b = Envelope.snapshot(Samples.clusterState(reversed: true), sequence: 5, term: 1, requestID: 2, settings: PolicySettings()).serializedBytes()
        #expect(a == b)
    }
}
