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

    /// A follower of one device group sees the group's batches only: sequences skip the other groups',
    /// and each batch names the group's previous one.
    @Test("one group: a jump in sequence is not a gap, a previous batch not shown is; repeats are skipped",
          arguments: [
            // (sequence, the group's previous batch, expected: nil = shown already, false = follows on, true = missed)
            [(UInt64(4), UInt64(0), false), (9, 4, false), (30, 9, false), (31, 30, false)],
            [(4, 0, false), (9, 4, false), (40, 30, true), (41, 40, false)],
            [(4, 0, false), (9, 4, false), (9, 4, nil), (8, 4, nil), (12, 9, false)],
          ] as [[(UInt64, UInt64, Bool?)]])
    func groupGaps(_ stream: [(UInt64, UInt64, Bool?)]) {
        var position = EventStreamPosition()
        for (sequence, previous, expected) in stream {
            #expect(position.show(sequence, groupPrevious: previous) == expected, "batch \(sequence) after \(previous)")
        }
    }

    @Test("a group follower that replayed through a sequence misses nothing the replay read")
    func groupAfterReplay() {
        var position = EventStreamPosition()
        position.shown(through: 50)
        #expect(position.show(60, groupPrevious: 47) == false, "the group's batch 47 was in the replay")
        #expect(position.show(70, groupPrevious: 65) == true, "65 came after 60 and was not heard")
    }
}
