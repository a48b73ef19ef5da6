public import CamsyncEtcdModel

/// One turn's group commit, as the core asks its shell for it (`CoordinatorAction.commit`). Up to
/// `CoordinatorSettings.commitsInFlight` of them are in flight at once (a pipelined log): the shell
/// answers each with `turnCommitted(_:at:)` or `turnFailed(_:_:at:)`, in any order; the core releases
/// replies and publications in commit order only.
public struct TurnCommit: Sendable, Equatable {
    /// Names this commit in the answer (unique for the life of the core).
    public var id: UInt64
    /// The turn's accepted commands; their batches are encoded by the first to read `entries`.
    public let turnEntries: TurnEntries
    /// HA: the leadership the write is conditional on (nil: the embedded journal).
    public var leadership: EtcdLeadership?
    /// The last sequence of the turn before this one while that turn is still in flight: the write is
    /// conditional on that turn being in the log too, so that a turn reaching etcd early fails
    /// (`StoreFailure.Kind.outOfOrder`) instead of leaving a hole. nil: every earlier turn is durable.
    public var follows: UInt64?

    public init(id: UInt64, entries: [JournalEntry], leadership: EtcdLeadership?, follows: UInt64?) {
        self.init(id: id, turnEntries: TurnEntries(entries), leadership: leadership, follows: follows)
    }

    init(id: UInt64, turnEntries: TurnEntries, leadership: EtcdLeadership?, follows: UInt64?) {
        self.id = id
        self.turnEntries = turnEntries
        self.leadership = leadership
        self.follows = follows
    }

    /// The turn's accepted commands, each with its batch as published (encoded on the first read).
    public var entries: [JournalEntry] { turnEntries.entries }

    /// How many commands the turn holds (nothing encoded).
    public var count: Int { turnEntries.count }

    /// The sequence of the turn's last command (its key in the log).
    public var lastSequence: UInt64 { turnEntries.lastSequence ?? 0 }

    public static func == (a: Self, b: Self) -> Bool {
        a.id == b.id && a.leadership == b.leadership && a.follows == b.follows && a.entries == b.entries
    }
}
