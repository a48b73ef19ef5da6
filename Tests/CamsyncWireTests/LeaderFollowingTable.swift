import Foundation
import CamsyncWire
import Testing

/// The cases of `Tests/Fixtures/leader-following.tsv` (SPEC K7), the table the C agent's test reads too.
/// The format is described at the top of the file.
struct LeaderFollowingCase: Sendable, CustomTestStringConvertible {
    enum Step: Sendable {
        case term(UInt64, raised: Bool)
        case named(String, UInt64, FollowedLeader.Source, FollowedLeader.Decision)
        case silent(moved: Bool)
        case next(moved: Bool)
        case stale(UInt64, Bool)
        case expect(FollowedLeader.Coordinator, highest: UInt64, left: FollowedLeader.Coordinator?)
    }

    var name: String
    var line: Int
    var endpoints: [String] = []
    var steps: [(line: Int, step: Step)] = []
    var testDescription: String { name }

    static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/leader-following.tsv")

    /// Every case of the table; a line it cannot read is a test failure (`ParseError`), not a skipped case.
    static func all() throws -> [LeaderFollowingCase] {
        var cases: [LeaderFollowingCase] = []
        let lines = try String(contentsOf: fixture, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
        for (index, raw) in lines.enumerated() {
            let line = index + 1
            let words = raw.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
            guard let directive = words.first, !directive.hasPrefix("#") else { continue }
            let args = Array(words.dropFirst())
            if directive == "case" {
                cases.append(LeaderFollowingCase(name: args.joined(separator: " "), line: line))
                continue
            }
            guard !cases.isEmpty else { throw ParseError(line: line, text: String(raw)) }
            if directive == "endpoints" {
                cases[cases.count - 1].endpoints = args
                continue
            }
            guard let step = parse(directive, args) else { throw ParseError(line: line, text: String(raw)) }
            cases[cases.count - 1].steps.append((line, step))
        }
        return cases
    }

    struct ParseError: Error, CustomStringConvertible {
        var line: Int
        var text: String
        var description: String { "leader-following.tsv:\(line): cannot read \"\(text)\"" }
    }

    private static func parse(_ directive: String, _ args: [String]) -> Step? {
        func moved(_ word: String) -> Bool? { ["moved": true, "stayed": false][word] }
        switch (directive, args.count) {
        case ("term", 2):
            guard let term = UInt64(args[0]), let raised = ["raised": true, "same": false][args[1]] else { return nil }
            return .term(term, raised: raised)
        case ("named", 4):
            guard let term = UInt64(args[1]), let source = FollowedLeader.Source(rawValue: args[2]),
                  let decision = decision(args[3]) else { return nil }
            return .named(args[0] == "-" ? "" : args[0], term, source, decision)
        case ("silent", 1):
            return moved(args[0]).map { .silent(moved: $0) }
        case ("next", 1):
            return moved(args[0]).map { .next(moved: $0) }
        case ("stale", 2):
            guard let term = UInt64(args[0]), let stale = ["yes": true, "no": false][args[1]] else { return nil }
            return .stale(term, stale)
        case ("expect", 4):
            guard let term = UInt64(args[1]), let highest = UInt64(args[2]) else { return nil }
            var left: FollowedLeader.Coordinator?
            if args[3] != "-" {
                let parts = args[3].split(separator: "@")
                guard parts.count == 2, let leftTerm = UInt64(parts[1]) else { return nil }
                left = .init(commandEndpoint: String(parts[0]), term: leftTerm)
            }
            return .expect(.init(commandEndpoint: args[0], term: term), highest: highest, left: left)
        default:
            return nil
        }
    }

    private static func decision(_ word: String) -> FollowedLeader.Decision? {
        switch word {
        case "follow": .follow
        case "same": .sameCoordinator
        case "no-endpoint": .ignored(.noEndpoint)
        case "lower-term": .ignored(.lowerTerm)
        case "left-for-silence": .ignored(.leftForSilence)
        default: nil
        }
    }
}
