import CamsyncWire
import Testing

/// SPEC K7: the leader-following rule, driven by the table the C agent's test reads too.
@Suite struct FollowedLeaderTests {
    static let cases = (try? LeaderFollowingCase.all()) ?? []

    @Test("the table of cases reads whole, and covers the rule")
    func tableReads() throws {
        let cases = try LeaderFollowingCase.all()
        #expect(cases.count >= 10)
        #expect(cases.allSatisfy { !$0.endpoints.isEmpty && !$0.steps.isEmpty }, "every case has endpoints and steps")
        let decisions = cases.flatMap(\.steps).compactMap { if case .named(_, _, _, let decision) = $0.step { decision } else { nil } }
        for decision: FollowedLeader.Decision in [.follow, .sameCoordinator, .ignored(.noEndpoint), .ignored(.lowerTerm),
                                                  .ignored(.leftForSilence)] {
            #expect(decisions.contains(decision), "no case decides \(decision)")
        }
    }

    @Test("K7: leader following", arguments: cases)
    func followsTheTable(_ table: LeaderFollowingCase) {
        var leader = FollowedLeader(endpoints: table.endpoints)
        for (line, step) in table.steps {
            let at = SourceLocation(fileID: "Fixtures/leader-following.tsv", filePath: LeaderFollowingCase.fixture.path,
                                    line: line, column: 1)
            switch step {
            case .term(let term, let raised):
                #expect(leader.noteTerm(term) == raised, "term \(term)", sourceLocation: at)
            case .named(let endpoint, let term, let source, let decision):
                #expect(leader.named(commandEndpoint: endpoint, term: term, by: source) == decision,
                        "named \(endpoint)@\(term) by \(source)", sourceLocation: at)
            case .silent(let moved):
                #expect(leader.fellSilent() == moved, sourceLocation: at)
            case .next(let moved):
                #expect(leader.tryNext() == moved, sourceLocation: at)
            case .stale(let term, let stale):
                #expect(leader.isStale(term: term) == stale, "term \(term)", sourceLocation: at)
            case .expect(let followed, let highest, let left):
                #expect(leader.followed == followed, sourceLocation: at)
                #expect(leader.highestTerm == highest, sourceLocation: at)
                #expect(leader.leftForSilence == left, sourceLocation: at)
            }
        }
    }

    /// A client that hears no heartbeats (found by `camsync sim`): hearsay about the one it left for
    /// silence is ignored while a dead leader's lease could still be on etcd, then believed.
    @Test("K7 for a client that keeps time: the memory of the one left for silence lapses", arguments: [
        (Int64(1_000), FollowedLeader.Decision.ignored(.leftForSilence)),
        (FollowedLeader.hearsayMemoryMilliseconds - 1, .ignored(.leftForSilence)),
        (FollowedLeader.hearsayMemoryMilliseconds, .follow),
    ])
    func hearsayMemoryLapses(after elapsed: Int64, _ decision: FollowedLeader.Decision) {
        var leader = FollowedLeader(endpoints: ["a", "b", "c"])
        leader.noteTerm(5)
        _ = leader.named(commandEndpoint: "a", term: 5, by: .itself)
        let moved = leader.fellSilent(at: 10_000)
        #expect(moved)
        #expect(leader.named(commandEndpoint: "a", term: 5, by: .another, at: 10_000 + elapsed) == decision)
        #expect((leader.leftForSilence == nil) == (decision == .follow))
    }

    @Test("without a clock (a node: it hears heartbeats) the memory lasts until a higher term or the leader's own word")
    func noClockNoLapse() {
        var leader = FollowedLeader(endpoints: ["a", "b"])
        leader.noteTerm(5)
        _ = leader.named(commandEndpoint: "a", term: 5, by: .itself)
        leader.fellSilent()
        #expect(leader.named(commandEndpoint: "a", term: 5, by: .another, at: 1_000_000) == .ignored(.leftForSilence))
        #expect(leader.named(commandEndpoint: "a", term: 5, by: .itself) == .follow)
    }
}
