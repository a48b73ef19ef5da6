import CamsyncWire
import Dispatch
import ZeroMQ

/// The PUB socket on a thread of its own: the loop hands over each publication (topic, envelope) in
/// order, and this thread encodes and sends them, so that encoding batches for the event socket
/// takes a second core instead of the loop's (issue 24). Order is kept: one queue, one thread.
final class EventPublisher: @unchecked Sendable {
    private let queue = Locked<Pending>(Pending())
    private let ready = DispatchSemaphore(value: 0)
    private var thread: JoinableThread?

    private struct Pending {
        var items: [(topic: String, envelope: Envelope)] = []
        var stopping = false
    }

    /// Takes `socket` (bound, options set): from now on only this publisher's thread uses it (the
    /// caller keeps no reference; libzmq allows a socket to move to another thread).
    init(socket: ZMQSocket) throws {
        nonisolated(unsafe) let socket = socket
        thread = try JoinableThread { [queue, ready] in
            var batch: [(topic: String, envelope: Envelope)] = []
            while true {
                ready.wait()
                let stopping = queue.withLock { pending in
                    swap(&batch, &pending.items)
                    return pending.stopping
                }
                for (topic, envelope) in batch {
                    _ = try? socket.send([Array(topic.utf8), envelope.serializedBytes()], dontWait: true)
                }
                batch.removeAll(keepingCapacity: true)
                if stopping { break }
            }
            socket.close()
        }
    }

    /// Queues one publication (sent after every one queued before it).
    func publish(topic: String, _ envelope: Envelope) {
        let wake = queue.withLock { pending in
            pending.items.append((topic, envelope))
            return pending.items.count == 1
        }
        if wake { ready.signal() }
    }

    /// Sends what is queued, then closes the socket and ends the thread.
    func stop() {
        queue.withLock { $0.stopping = true }
        ready.signal()
        thread?.join()
        thread = nil
    }
}
