import CamsyncPolicy
import Yams

extension StepParser {
    /// The audio part of an app check (A1–A8): `audio: active|inactive|interrupted`, `category:`,
    /// `ducked:`, `hint:`; nil when the check has none of them.
    func audioPattern(_ m: Node.Mapping, keys: Set<String>, field: String) throws -> Scenario.AudioPattern? {
        guard !keys.isDisjoint(with: ["audio", "category", "ducked", "hint"]) else { return nil }
        var pattern = Scenario.AudioPattern()
        if let a = m["audio"] {
            guard let text = a.string, let activity = Scenario.AudioPattern.Activity(rawValue: text) else {
                throw fail("\(field).audio", "'\(a.string ?? "?")' is not an audio session state: active, inactive or interrupted")
            }
            pattern.activity = activity
        }
        if let c = m["category"] {
            guard let text = c.string, let category = AudioSessionCategory(rawValue: text) else {
                throw fail("\(field).category", "'\(c.string ?? "?")' is not a category: \(AudioSessionCategory.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            pattern.category = category
        }
        if let d = m["ducked"] { pattern.ducked = try bool(d, field: "\(field).ducked") }
        if let h = m["hint"] { pattern.hint = try bool(h, field: "\(field).hint") }
        return pattern
    }
}
