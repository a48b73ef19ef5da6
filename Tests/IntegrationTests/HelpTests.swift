import CamsyncProcessLab
import Foundation
import Testing

/// Every command's help is written as paragraphs and left to swift-argument-parser to wrap: a text
/// hard-wrapped in the source is wrapped again at the terminal's width, raggedly ("…etcd (or" /
/// "journal)…"), and a preformatted line (an example) longer than 80 columns is broken at column 0.
@Suite struct HelpTests {
    /// One help text of one command (its abstract or discussion, or an argument's).
    struct Text {
        var command: String
        var what: String
        var text: String
    }

    /// Every help text the binary holds, from its `--experimental-dump-help` (the same strings
    /// `--help` renders), and every command's path.
    static func helpTexts() throws -> (texts: [Text], commands: [[String]]) {
        let dump = try runCommand(try camsyncBinary(), ["--experimental-dump-help"], includeStandardError: false, timeout: 60)
        let root = try #require(try JSONSerialization.jsonObject(with: Data(dump.output.utf8)) as? [String: Any])
        var texts: [Text] = [], commands: [[String]] = []
        func walk(_ command: [String: Any], _ path: [String]) {
            let path = path + [command["commandName"] as? String ?? "?"]
            commands.append(path)
            let name = path.joined(separator: " ")
            for key in ["abstract", "discussion"] {
                if let text = command[key] as? String { texts.append(Text(command: name, what: key, text: text)) }
            }
            for argument in command["arguments"] as? [[String: Any]] ?? [] {
                for key in ["abstract", "discussion"] {
                    if let text = argument[key] as? String {
                        texts.append(Text(command: name, what: "\(argument["valueName"] ?? "argument")'s \(key)", text: text))
                    }
                }
            }
            for sub in command["subcommands"] as? [[String: Any]] ?? [] { walk(sub, path) }
        }
        walk(try #require(root["command"] as? [String: Any]), [])
        return (texts, commands)
    }

    /// The line breaks a help text may hold: between paragraphs (a blank line), before an indented
    /// line or a list item ("- "), and after a heading (a line ending with a colon). Any other break
    /// is a paragraph hard-wrapped in the source. An indented line is printed as it is, so it must
    /// fit in 80 columns.
    static func raggedBreaks(_ text: String) -> [String] {
        let lines = text.components(separatedBy: "\n")
        var found: [String] = []
        for (index, line) in lines.enumerated() {
            if line.hasPrefix(" "), line.count > 80 { found.append("longer than 80 columns: \(line)") }
            guard index > 0 else { continue }
            let before = lines[index - 1]
            if before.isEmpty || line.isEmpty || line.hasPrefix(" ") || line.hasPrefix("- ") || before.hasSuffix(":") { continue }
            found.append("a paragraph broken between \"…\(before.suffix(30))\" and \"\(line.prefix(30))…\"")
        }
        return found
    }

    @Test("the check finds a hard-wrapped paragraph and an over-long example, and passes paragraphs, lists and examples")
    func checkBites() {
        #expect(Self.raggedBreaks("Runs the cores through a simulated network, etcd (or\njournal) and clocks.").count == 1)
        #expect(Self.raggedBreaks("Examples:\n  " + String(repeating: "x", count: 79)).count == 1)
        #expect(Self.raggedBreaks("One paragraph.\n\nAnother.\n\nExamples:\n  camsync sim --seed 7\n  camsync sim --seeds 1-200\n- an item\n- another").isEmpty)
    }

    @Test("no help text of any command is hard-wrapped inside a paragraph, and no example is wider than 80 columns")
    func noRaggedWrapping() throws {
        let (texts, commands) = try Self.helpTexts()
        #expect(commands.count > 20, "every command was read: \(commands.count)")
        for text in texts {
            for problem in Self.raggedBreaks(text.text) {
                Issue.record("\(text.command), \(text.what): \(problem)")
            }
        }
    }

    @Test("every command's --help renders, exit 0, and shows its overview")
    func everyHelpRenders() throws {
        let (_, commands) = try Self.helpTexts()
        for path in commands {
            let run = try runCommand(try camsyncBinary(), Array(path.dropFirst()) + ["--help"], timeout: 60)
            #expect(run.status == 0, "\(path.joined(separator: " ")) --help: \(run.output)")
            #expect(run.output.contains("USAGE:"), "\(path.joined(separator: " ")) --help: \(run.output)")
        }
    }
}
