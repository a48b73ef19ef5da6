public import CamsyncWire
import Synchronization

/// The accepted commands of one turn, their batches as the engine produced them, and — once someone
/// needs them — the batches' bytes. A turn is gathered on the loop's thread; its batches are encoded
/// by whoever reads `entries` first: the journal's writer thread or etcd's task making the turn
/// durable (so that encoding, a tenth of a command's cost, leaves the loop's core, issue 24), or the
/// loop itself when it writes a small turn at once. Encoded once, under a lock; the replies and
/// publications released after the commit read the same bytes.
public final class TurnEntries: Sendable {
    /// One accepted command, before its batch is encoded.
    struct Accepted: Sendable {
        var node: String
        var batch: Camsync_V1_EventBatch
    }

    private struct State {
        var accepted: [Accepted] = []
        var encoded: [JournalEntry]?
    }

    private let state: Mutex<State>

    init() { state = Mutex(State()) }

    /// Entries encoded already (a turn sent again, tests).
    init(_ entries: [JournalEntry]) { state = Mutex(State(encoded: entries)) }

    /// Adds a command while the turn is gathered (the loop's thread, before the turn is committed).
    func append(_ batch: Camsync_V1_EventBatch, node: String) {
        state.withLock { state in
            precondition(state.encoded == nil, "a turn's entries are encoded once it is handed to the log")
            state.accepted.append(Accepted(node: node, batch: batch))
        }
    }

    public var count: Int { state.withLock { $0.encoded?.count ?? $0.accepted.count } }

    public var isEmpty: Bool { count == 0 }

    /// The sequence of the last command (nil: none).
    var lastSequence: UInt64? {
        state.withLock { $0.encoded?.last?.sequence ?? $0.accepted.last?.batch.sequence }
    }

    /// The batches as the engine produced them (kept in `RecentBatches` once durable).
    var batches: [Camsync_V1_EventBatch] {
        state.withLock { $0.accepted.map(\.batch) }
    }

    /// The entries as the log keeps them, each batch encoded once (on the first read, by the reader's
    /// thread); the command is cut out of its batch's bytes rather than encoded again.
    public var entries: [JournalEntry] {
        state.withLock { state in
            if let encoded = state.encoded { return encoded }
            let encoded = state.accepted.map { accepted in
                let bytes = WireCodec.encode(accepted.batch)
                return JournalEntry(sequence: accepted.batch.sequence, term: accepted.batch.term,
                                    timeMilliseconds: accepted.batch.timeMs, node: accepted.node,
                                    requestID: accepted.batch.originRequestID,
                                    command: WireCodec.command(ofEncodedBatch: bytes) ?? WireCodec.encode(accepted.batch.command),
                                    batch: bytes)
            }
            state.encoded = encoded
            return encoded
        }
    }
}
