import Foundation
import Synchronization

extension EtcdClient {
    /// Calls `body` with each batch of changes to keys under `prefix`, starting at `revision`
    /// (inclusive), in revision order, until `body` returns false or the task is cancelled.
    /// When a member fails (unreachable, lost its leader) the watch resumes on another member
    /// from the revision after the last one delivered, so nothing is skipped or repeated.
    /// Throws `.compacted` (with `compactRevision`) when `revision` is older than the history
    /// etcd keeps, and the summary error when no member can serve the watch.
    public func watch(prefix: String, from revision: Int64,
                      _ body: @escaping @Sendable ([EtcdWatchEvent]) async throws -> Bool) async throws {
        let progress = WatchProgress(next: revision)
        while true {
            let stopped = try await call("watch \(prefix)* from \(progress.next)", retry: .idempotent) { member in
                try await watchStream(on: member, prefix: prefix, progress: progress, body: body)
            }
            if stopped { return }
        }
    }

    /// One watch stream on one member; true when `body` asked to stop, false when the stream ended.
    private func watchStream(on member: Member, prefix: String, progress: WatchProgress,
                             body: @escaping @Sendable ([EtcdWatchEvent]) async throws -> Bool) async throws -> Bool {
        let create = Etcdserverpb_WatchRequest.with {
            $0.createRequest = .with {
                $0.key = Data(prefix.utf8)
                $0.rangeEnd = EtcdKeys.prefixEnd(prefix)
                $0.startRevision = progress.next
            }
        }
        // The request side stays open until the response side is done (a closed request
        // stream would end the watch on some etcd versions).
        let (done, finish) = AsyncStream<Void>.makeStream()
        let at = member.endpoint.description
        return try await member.watch.watch(metadata: metadata, options: streamOptions) { writer in
            try await writer.write(create)
            for await _ in done {}
        } onResponse: { response in
            defer { finish.finish() }
            for try await message in response.messages {
                if message.compactRevision > 0 {
                    throw EtcdError(.compacted, "watch \(prefix)* from \(progress.next): history before revision \(message.compactRevision) is compacted",
                                    member: at, compactRevision: message.compactRevision)
                }
                if message.canceled {
                    throw EtcdError(.unavailable, "watch \(prefix)* cancelled by the member: \(message.cancelReason)", member: at)
                }
                guard let last = message.events.last else { continue }
                progress.delivered(through: last.kv.modRevision)
                if try await !body(message.events.map(EtcdWatchEvent.init)) { return true }
            }
            return false
        }
    }
}

/// The next revision a watch wants (after the last one delivered), shared by its streams.
final class WatchProgress: Sendable {
    private let state: Mutex<Int64>

    init(next: Int64) { state = Mutex(next) }

    var next: Int64 { state.withLock { $0 } }

    func delivered(through revision: Int64) { state.withLock { $0 = revision + 1 } }
}

extension EtcdWatchEvent {
    init(_ event: Mvccpb_Event) {
        self.init(kind: event.type == .delete ? .delete : .put, keyValue: EtcdKeyValue(event.kv))
    }
}
