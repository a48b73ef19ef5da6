public import CamsyncPolicy

/// The capture-graph words of `session configure` (seed 002, C11–C14): several cameras of one
/// MultiCam session, video data outputs with their own resolution, audio data outputs.
extension ActionVerbs {
    /// `--camera NAME` and / or `--cameras NAME,NAME,…` (C14): the first is the session's camera,
    /// the others its MultiCam cameras. `NODE/NAME` names another node's camera.
    static func parseCameras(node: NodeID, camera: String?, cameras: String?) throws(ActionParseError) -> [CameraID] {
        var words: [(option: String, word: String)] = camera.map { [("--camera", $0)] } ?? []
        if let cameras {
            let listed = cameras.split(separator: ",", omittingEmptySubsequences: false).map { String($0.trimmingSpaces()) }
            guard !listed.contains("") else { throw ActionParseError("`--cameras` must be NAME,NAME,… such as back,telephoto, not '\(cameras)'") }
            words += listed.map { ("--cameras", $0) }
        }
        guard !words.isEmpty else {
            throw ActionParseError("`session configure` needs a camera: --camera NAME (on \(node)) or --camera NODE/NAME (e.g. a display's camera), or a MultiCam session's cameras: --cameras back,telephoto")
        }
        var result: [CameraID] = []
        for (option, word) in words {
            if let slash = word.firstIndex(of: "/") {
                let host = String(word[..<slash]), name = String(word[word.index(after: slash)...])
                guard !host.isEmpty, !name.isEmpty else { throw ActionParseError("`\(option)` must be NAME or NODE/NAME, not '\(word)'") }
                result.append(CameraID(host: NodeID(host), name: name))
            } else {
                result.append(CameraID(host: node, name: word))
            }
        }
        return result
    }

    /// The outputs of `--outputs video:4k,video:preview,movie,audio`: each `video` entry is one video
    /// data output (C11), `video:RES` gives its resolution (`preview` = 720p, docs/POLICY.md).
    struct ParsedOutputs: Equatable {
        var outputs: [CaptureOutput]
        /// One per video data output when any was given a resolution (the others `nil`: the format's).
        var videoResolutions: [CaptureResolution?]
    }

    static func parseOutputs(_ text: String) throws(ActionParseError) -> ParsedOutputs {
        var parsed = ParsedOutputs(outputs: [], videoResolutions: [])
        for word in text.split(separator: ",").map({ String($0).lowercased() }) {
            let parts = word.split(separator: ":", maxSplits: 1).map(String.init)
            guard let output = CaptureOutput.named(parts.first ?? "") else {
                throw ActionParseError("`--outputs` knows video[:RESOLUTION], movie, photo, asset-writer, depth, metadata and audio, not '\(word)'")
            }
            if parts.count == 2 {
                guard output == .videoData else {
                    throw ActionParseError("only a video data output takes a resolution (video:4k), not '\(word)'")
                }
                guard let resolution = CaptureResolution.named(parts[1], allowingPreview: true) else {
                    throw ActionParseError("a video data output's resolution must be 4k, 1080p, 720p, vga or preview, not '\(parts[1])'")
                }
                parsed.videoResolutions.append(resolution)
            } else if output == .videoData {
                parsed.videoResolutions.append(nil)
            }
            parsed.outputs.append(output)
        }
        guard !parsed.outputs.isEmpty else { throw ActionParseError("`--outputs` needs at least one output, e.g. video,movie") }
        return parsed
    }

    /// Applies `--outputs` to a configuration whose `resolution` is already set when `--resolution`
    /// was given. Without it, the largest video data resolution named is the camera format's.
    static func apply(_ parsed: ParsedOutputs, resolutionGiven: Bool, to configuration: inout SessionConfiguration) {
        configuration.outputs = parsed.outputs
        // `audio` needs the microphone: an audio data output implies `--audio-input`.
        if parsed.outputs.contains(.audioData) { configuration.audioInput = true }
        let named = parsed.videoResolutions.compactMap { $0 }
        guard !named.isEmpty else { return }
        if !resolutionGiven, let largest = named.max(by: { HardwareCostModel.baseMilli($0) < HardwareCostModel.baseMilli($1) }) {
            configuration.resolution = largest
        }
        configuration.videoDataResolutions = parsed.videoResolutions.map { $0 ?? configuration.resolution }
    }
}

extension CaptureResolution {
    /// The resolution by the words verbs and scenario files use (4k, 1080p, 720p, vga); with
    /// `allowingPreview`, `preview` (preview-sized buffers, modelled as 720p [policy]).
    public static func named(_ word: String, allowingPreview: Bool = false) -> Self? {
        switch word.lowercased() {
        case "4k", "uhd4k", "2160p": .uhd4K
        case "1080p", "hd1080": .hd1080
        case "720p", "hd720": .hd720
        case "vga", "480p": .vga
        case "preview" where allowingPreview: .hd720
        default: nil
        }
    }
}
