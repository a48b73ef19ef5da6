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
}
