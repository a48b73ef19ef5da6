import CamsyncPolicy

/// `audio …` actions: an app's own AVAudioSession calls (SPEC §8, A1–A8).
extension ActionVerbs {
    static let audioVerbs: [Verb] = [
        Verb(usage: "audio category APP playback|playAndRecord|ambient|soloAmbient|record [--mix-with-others] [--duck-others]",
             summary: "APP sets its audio session category and options (setCategory; options only with playback and playAndRecord, --duck-others implies --mix-with-others); on an active session it counts as an activation",
             rules: "A1, A2, A3", examples: ["audio category com.example.game ambient", "audio category com.example.navigation playback --duck-others"]),
        Verb(usage: "audio activate APP",
             summary: "APP activates its audio session when the user first uses its audio (setActive(true)): a non-mixable session interrupts the other one, refused from background (cannotInterruptOthers); ducking, the silence hint and the microphone (reason 2) follow",
             rules: "A2, A3, A4, A5, A7, A8", examples: ["audio activate com.example.music"]),
        Verb(usage: "audio deactivate APP",
             summary: "APP deactivates its audio session (setActive(false), notifying others): the sessions it interrupted get interruptionNotification ended shouldResume=true",
             rules: "A6, A7", examples: ["audio deactivate com.example.videocall"]),
    ]

    static func parseAudio(node: NodeID, _ args: inout Arguments) throws(ActionParseError) -> Command {
        guard let sub = args.next()?.lowercased() else {
            throw ActionParseError("`audio` needs category, activate or deactivate (e.g. `audio activate com.example.music`)")
        }
        switch sub {
        case "category", "set-category":
            let usage = audioVerbs[0].usage
            let app = try app(node, &args, usage)
            guard let word = args.next() else {
                throw ActionParseError("`audio category` needs a category: \(AudioSessionCategory.allCases.map(\.rawValue).joined(separator: ", ")) (usage: \(usage))")
            }
            guard let category = AudioSessionCategory.allCases.first(where: { $0.rawValue.lowercased() == word.lowercased() }) else {
                throw ActionParseError("`audio category` must be one of \(AudioSessionCategory.allCases.map(\.rawValue).joined(separator: ", ")), not '\(word)'")
            }
            return .setAudioCategory(app, AudioSessionConfiguration(
                category: category, mixWithOthers: args.flag("--mix-with-others"), duckOthers: args.flag("--duck-others")))
        case "activate", "start":
            return .activateAudioSession(try app(node, &args, audioVerbs[1].usage))
        case "deactivate", "stop":
            return .deactivateAudioSession(try app(node, &args, audioVerbs[2].usage))
        default:
            throw ActionParseError("`audio` needs category, activate or deactivate, not '\(sub)'")
        }
    }
}
