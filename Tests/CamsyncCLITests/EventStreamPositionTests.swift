import CamsyncClient
import Testing

/// `ctl watch` prints each batch once, whatever the stream repeats (SPEC K6, K7).
@Suite struct EventStreamPositionTests {
    @Test("a new leader's republished tail is skipped; a deposed leader's late batch too; gaps are counted")
    func showsEachSequenceOnce() {
        var position = EventStreamPosition()
        var shown: [UInt64] = []
        func receive(term: UInt64, sequence: UInt64) -> UInt64? {
            guard position.note(term: term) != .deposed, let missed = position.show(sequence) else { return nil }
            shown.append(sequence)
            return missed
        }
        #expect(receive(term: 2, sequence: 5) == 0, "the first batch: nothing known to be missed")
        #expect(receive(term: 2, sequence: 6) == 0)
        #expect(receive(term: 2, sequence: 7) == 0)
        // c2 leads in term 3 and publishes again the tail c1 had published already.
        #expect(position.note(term: 3) == .rose(from: 2))
        #expect(receive(term: 3, sequence: 6) == nil)
        #expect(receive(term: 3, sequence: 7) == nil)
        #expect(receive(term: 3, sequence: 8) == 0)
        #expect(receive(term: 2, sequence: 9) == nil, "a deposed leader's late publication")
        #expect(receive(term: 3, sequence: 11) == 2, "9 and 10 were missed")
        #expect(shown == [5, 6, 7, 8, 11])
    }

    @Test("a replay's batches count as shown: the live stream's overlap is skipped")
    func replayOverlap() {
        var position = EventStreamPosition()
        position.shown(through: 20)
        #expect(position.show(19) == nil)
        #expect(position.show(20) == nil)
        #expect(position.show(21) == 0)
    }
}
