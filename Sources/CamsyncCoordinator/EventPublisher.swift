import CamsyncRuntime
import Foundation
import ZeroMQ
import CamsyncCoordinatorCore

/// The event socket (an XPUB in manual mode), sent on by the loop while it is idle and by a thread
/// of its own under load: the loop hands over each publication (topic, envelope with its bytes) in
/// order; when nothing is queued or being sent it sends it itself (a hand-off less for a claim's
/// grant at low load), otherwise it queues it for the publisher's thread, so that libzmq's fan-out
/// to the subscribers' pipes takes a second core instead of the loop's. Order is kept: one queue,
/// and the socket is used by one side at a time (`sending`, under the lock: libzmq allows a socket
/// to move between threads across a full memory barrier).
///
/// Subscriptions are admitted here, per connection (`SubscriptionGate`, least privilege for reads):
/// libzmq hands each subscription message up with the ZAP "User-Id" of the connection it came on,
/// and only an admitted topic is applied to that connection. Whichever side holds the socket takes
/// the waiting subscription messages after it sends; the publisher's thread also wakes for them
/// (it polls the socket's `ZMQ_FD` beside its own wake pipe, never the socket itself, so it never
/// touches the socket while the loop holds it).
final class EventPublisher: @unchecked Sendable {
    private let queue = Locked<Pending>(Pending())
    private let wake: (read: Int32, write: Int32)
    private let socket: ZMQSocket
    private let gate: SubscriptionGate
    private let refused: @Sendable (_ key: String?, _ why: String) -> Void
    private var thread: JoinableThread?

    private struct Pending {
        var items: [(topic: String, publication: Publication)] = []
        /// One side (the loop, or the publisher's thread) is sending: the other keeps off the socket.
        var sending = false
        var stopping = false
    }

    /// Takes `socket` (an XPUB, bound, options set, `xpubManual(true)`): from now on only this
    /// publisher uses it. `refused` is told of every subscription the gate refuses (any thread).
    init(socket: ZMQSocket, gate: SubscriptionGate,
         refused: @escaping @Sendable (_ key: String?, _ why: String) -> Void) throws {
        self.socket = socket
        self.gate = gate
        self.refused = refused
        var fds: [Int32] = [0, 0]
        guard Foundation.pipe(&fds) == 0 else { throw CoordinatorStartError.system("pipe() failed: errno \(errno)") }
        for fd in fds { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
        wake = (fds[0], fds[1])
        let socketDescriptor = try socket.fileDescriptor
        thread = try JoinableThread { [self] in serve(socketDescriptor: socketDescriptor) }
    }

    deinit {
        close(wake.read)
        close(wake.write)
    }

    /// The publisher's thread: waits for a hand-off or for the socket's signal, sends what is
    /// queued, takes subscription messages; at `stop`, sends what is left and closes the socket.
    private func serve(socketDescriptor: Int32) {
        var batch: [(topic: String, publication: Publication)] = []
        var descriptors = [pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0),
                           pollfd(fd: socketDescriptor, events: Int16(POLLIN), revents: 0)]
        var sink = [UInt8](repeating: 0, count: 256)
        while true {
            _ = poll(&descriptors, nfds_t(descriptors.count), -1)
            while read(wake.read, &sink, sink.count) > 0 {}
            enum Turn { case send(stopping: Bool), busy }
            let turn = queue.withLock { pending -> Turn in
                if pending.sending { return .busy }   // the loop holds the socket: it takes the subscriptions
                swap(&batch, &pending.items)
                pending.sending = true
                return .send(stopping: pending.stopping)
            }
            guard case .send(let stopping) = turn else {
                sched_yield()
                continue
            }
            for (topic, publication) in batch { Self.send(topic, publication, on: socket) }
            batch.removeAll(keepingCapacity: true)
            takeSubscriptions()
            queue.withLock { $0.sending = false }
            if stopping { break }
        }
        socket.close()
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
            takeSubscriptions()
            queue.withLock { $0.sending = false }
        case .wake:
            signal()
        case .queued:
            break
        }
    }

    /// Sends what is queued, then closes the socket and ends the thread.
    func stop() {
        queue.withLock { $0.stopping = true }
        signal()
        thread?.join()
        thread = nil
    }

    private func signal() {
        var byte: UInt8 = 1
        _ = write(wake.write, &byte, 1)
    }

    /// Applies the subscription messages waiting on the socket, each to the connection it came on,
    /// as the gate says. Only by the side that holds the socket.
    private func takeSubscriptions() {
        while (try? socket.events.contains(.readable)) == true {
            guard let message = try? socket.receive(dontWait: true), let frame = message.frames.first,
                  let kind = frame.first else { return }
            let topic = Array(frame.dropFirst())
            switch kind {
            case 1:
                switch gate.verdict(topic: topic, key: message.userID) {
                case .admit: try? socket.set([.subscribe(topic)])
                case .refuse(let why): refused(message.userID, why)
                }
            case 0:
                try? socket.set([.unsubscribe(topic)])   // nothing when it was never admitted
            default:
                continue   // not a subscription (an XSUB's own message): nothing to publish it to
            }
        }
    }

    /// Sends one publication (its bytes are put together here: the batch's, with the envelope's header).
    private static func send(_ topic: String, _ publication: Publication, on socket: ZMQSocket) {
        _ = try? socket.send([Array(topic.utf8), publication.bytes], dontWait: true)
    }
}
