public import CamsyncWire
import Synchronization

/// The accepted commands of a committed turn, their batches as the engine produced them, and — once
/// someone needs them — the batches' bytes. The core gathers a turn as a plain array (`Turn.accepted`,
/// so that the core stays a value) and makes it one of these when it commits it; its batches are
/// encoded by whoever reads `entries` first: the journal's writer thread or etcd's task making the
/// turn durable (so that encoding, a tenth of a command's cost, leaves the loop's core), or
/// the loop itself when it writes a small turn at once. Encoded once, under a lock (a cache: the
/// contents never change); the publications released after the commit read the same bytes.
public final class TurnEntries: Sendable {
    /// The accepted commands' batches, before they are encoded.
    private let accepted: [Camsync_V1_EventBatch]
    private let encoded: Mutex<[JournalEntry]?>

    init(_ accepted: [Camsync_V1_EventBatch]) {
        self.accepted = accepted
        encoded = Mutex(nil)
    }

    /// Entries encoded already (tests, a commit built by hand).
    init(_ entries: [JournalEntry]) {
        accepted = []
        encoded = Mutex(entries)
    }

    /// The batch with `sequence`, as the engine produced it (nil: not one of this turn's, or the entries
    /// were given encoded).
    func batch(_ sequence: UInt64) -> Camsync_V1_EventBatch? {
        guard let first = accepted.first?.sequence, sequence >= first, sequence - first < UInt64(accepted.count) else { return nil }
        return accepted[Int(sequence - first)]
    }

    public var count: Int { accepted.isEmpty ? encoded.withLock { $0?.count ?? 0 } : accepted.count }

    /// The sequence of the last command (nil: none).
    var lastSequence: UInt64? {
        accepted.last.map(\.sequence) ?? encoded.withLock { $0?.last?.sequence }
    }

    /// The entries as the log keeps them, each batch encoded once (on the first read, by the reader's
    /// thread); the command is cut out of its batch's bytes rather than encoded again.
    public var entries: [JournalEntry] {
        encoded.withLock { encoded in
            if let encoded { return encoded }
            let entries = accepted.map { JournalEntry(publishedBatch: $0, encoded: WireCodec.encode($0)) }
            encoded = entries
            return entries
        }
    }
}
