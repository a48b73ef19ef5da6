import CamsyncCoordinatorCore
import CamsyncRuntime
import ZeroMQ
import Foundation

/// A queue other threads post to and the loop thread drains, with a pipe the loop polls so that a
/// post wakes it: etcd's news from the HA supervisor (`HAMailbox`), and the log's answers to the
/// turns in flight (`CommitWriter`).
final class LoopInbox<Element: Sendable>: Sendable {
    private let queue = Locked<[Element]>([])
    private let pipe: (read: Int32, write: Int32)

    init() throws {
        var fds: [Int32] = [0, 0]
        guard Foundation.pipe(&fds) == 0 else { throw CoordinatorStartError.system("pipe() failed: errno \(errno)") }
        for fd in fds { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
        pipe = (fds[0], fds[1])
    }

    deinit {
        close(pipe.read)
        close(pipe.write)
    }

    /// The descriptor the loop polls.
    var wakeDescriptor: Int32 { pipe.read }

    func post(_ element: Element) {
        queue.withLock { $0.append(element) }
        var byte: UInt8 = 1
        _ = write(pipe.write, &byte, 1)
    }

    /// Everything posted so far, oldest first.
    func take() -> [Element] {
        var sink = [UInt8](repeating: 0, count: 256)
        while read(pipe.read, &sink, sink.count) > 0 {}
        return queue.withLock { elements in
            defer { elements.removeAll(keepingCapacity: true) }
            return elements
        }
    }
}
