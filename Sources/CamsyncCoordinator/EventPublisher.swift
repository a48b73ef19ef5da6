import Dispatch
import ZeroMQ

/// The PUB socket, sent on by the loop while it is idle and by a thread of its own under load: the
/// loop hands over each publication (topic, envelope with its bytes) in order; when nothing is queued or
/// being sent it sends it itself (a hand-off less for a claim's grant at low load), otherwise it
/// queues it for the publisher's thread, so that libzmq's fan-out to every subscriber's pipe
/// (hundreds of them) takes a second core instead of the loop's. Order is kept: one queue,
/// and the socket is used by one side at a time (`sending`, under the lock: libzmq allows a socket to
/// move between threads across a full memory barrier).
final class EventPublisher: @unchecked Sendable {
    private let queue = Locked<Pending>(Pending())
    private let ready = DispatchSemaphore(value: 0)
    private let socket: ZMQSocket
    private var thread: JoinableThread?

    private struct Pending {
        var items: [(topic: String, publication: Publication)] = []
        /// One side (the loop, or the publisher's thread) is sending: the other keeps off the socket.
        var sending = false
        var stopping = false
    }

    /// Takes `socket` (bound, options set): from now on only this publisher uses it.
    init(socket: ZMQSocket) throws {
        self.socket = socket
        nonisolated(unsafe) let socket = socket
        thread = try JoinableThread { [queue, ready] in
            var batch: [(topic: String, publication: Publication)] = []
            while true {
                ready.wait()
                let stopping = queue.withLock { pending in
                    swap(&batch, &pending.items)
                    if !batch.isEmpty { pending.sending = true }
                    return pending.stopping
                }
                for (topic, publication) in batch { Self.send(topic, publication, on: socket) }
                if !batch.isEmpty { queue.withLock { $0.sending = false } }
                batch.removeAll(keepingCapacity: true)
                if stopping { break }
            }
            socket.close()
        }
    }

    /// Publishes one message after every one handed over before it: at once on the calling thread
    /// (the loop's) when the publisher is idle, else queued for its thread.
    func publish(topic: String, _ publication: Publication) {
        enum Route { case now, wake, queued }
        let route = queue.withLock { pending -> Route in
            if pending.items.isEmpty && !pending.sending && !pending.stopping {
                pending.sending = true
                return .now
            }
            pending.items.append((topic, publication))
            return pending.items.count == 1 ? .wake : .queued
        }
        switch route {
        case .now:
            Self.send(topic, publication, on: socket)
            queue.withLock { $0.sending = false }
        case .wake:
            ready.signal()
        case .queued:
            break
        }
    }

    /// Sends what is queued, then closes the socket and ends the thread.
    func stop() {
        queue.withLock { $0.stopping = true }
        ready.signal()
        thread?.join()
        thread = nil
    }

    /// Sends one publication (its bytes are put together here: the batch's, with the envelope's header).
    private static func send(_ topic: String, _ publication: Publication, on socket: ZMQSocket) {
        _ = try? socket.send([Array(topic.utf8), publication.bytes], dontWait: true)
    }
}
