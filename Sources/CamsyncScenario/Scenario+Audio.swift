public import CamsyncPolicy

extension Scenario {
    /// An audio-session check (A1–A8): `{ app: N/B, audio: active|inactive|interrupted,
    /// category: CATEGORY, ducked: BOOL, hint: BOOL }`; every part is optional but one.
    public struct AudioPattern: Sendable, Equatable, CustomStringConvertible {
        public enum Activity: String, Sendable, Equatable {
            /// Active.
            case active
            /// Inactive and not waiting for an interruption's end.
            case inactive
            /// Inactive, interrupted by another app's session (A3), waiting for its end (A6).
            case interrupted
        }

        public var activity: Activity?
        public var category: AudioSessionCategory?
        public var ducked: Bool?
        /// `secondaryAudioShouldBeSilencedHint` (A5).
        public var hint: Bool?

        public init(activity: Activity? = nil, category: AudioSessionCategory? = nil, ducked: Bool? = nil, hint: Bool? = nil) {
            self.activity = activity
            self.category = category
            self.ducked = ducked
            self.hint = hint
        }

        public var description: String {
            [activity?.rawValue, category.map { "category \($0.rawValue)" }, ducked.map { $0 ? "ducked" : "not ducked" },
             hint.map { "silence hint \($0)" }].compactMap { $0 }.joined(separator: ", ")
        }

        /// The observed session in the same words.
        public static func describe(_ session: AudioSessionRecord) -> String {
            let activity: Activity = session.isActive ? .active : session.interruptedBy != nil ? .interrupted : .inactive
            return [activity.rawValue + (session.interruptedBy.map { " by \($0)" } ?? ""), "category \(session.configuration)",
                    session.isDucked ? "ducked" : "not ducked", "silence hint \(session.secondaryAudioShouldBeSilencedHint)"]
                .joined(separator: ", ")
        }

        public func matches(_ session: AudioSessionRecord) -> Bool {
            if let activity {
                switch activity {
                case .active: if !session.isActive { return false }
                case .inactive: if session.isActive || session.interruptedBy != nil { return false }
                case .interrupted: if session.isActive || session.interruptedBy == nil { return false }
                }
            }
            if let category, session.configuration.category != category { return false }
            if let ducked, session.isDucked != ducked { return false }
            if let hint, session.secondaryAudioShouldBeSilencedHint != hint { return false }
            return true
        }
    }
}
