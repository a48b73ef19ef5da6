import Foundation

extension EtcdClient {
    /// The keys under `prefix` (all keys for ""), read linearizably, optionally as of an older
    /// `revision` (0: the latest) and at most `limit` of them (0: no limit), in key order.
    public func range(prefix: String, revision: Int64 = 0, limit: Int64 = 0) async throws -> EtcdRange {
        let request = Etcdserverpb_RangeRequest.with {
            $0.key = Data(prefix.utf8)
            $0.rangeEnd = EtcdKeys.prefixEnd(prefix)
            $0.revision = revision
            $0.limit = limit
            $0.sortOrder = .ascend
            $0.sortTarget = .key
        }
        let response = try await call("range \(prefix)*", retry: .idempotent) { member in
            try await member.kv.range(request, metadata: metadata, options: unaryOptions)
        }
        return EtcdRange(keyValues: response.kvs.map(EtcdKeyValue.init), revision: response.header.revision,
                         more: response.more)
    }

    /// The keys from `start` (inclusive) up to the end of `prefix`'s range, in key order, at most
    /// `limit` of them (0: no limit): paging through a prefix from a given key.
    public func range(from start: String, inPrefix prefix: String, limit: Int64 = 0) async throws -> EtcdRange {
        let request = Etcdserverpb_RangeRequest.with {
            $0.key = Data(start.utf8)
            $0.rangeEnd = EtcdKeys.prefixEnd(prefix)
            $0.limit = limit
            $0.sortOrder = .ascend
            $0.sortTarget = .key
        }
        let response = try await call("range \(start)…\(prefix)*", retry: .idempotent) { member in
            try await member.kv.range(request, metadata: metadata, options: unaryOptions)
        }
        return EtcdRange(keyValues: response.kvs.map(EtcdKeyValue.init), revision: response.header.revision,
                         more: response.more)
    }

    /// One key, or nil.
    public func get(_ key: String) async throws -> EtcdKeyValue? {
        let request = Etcdserverpb_RangeRequest.with { $0.key = Data(key.utf8) }
        let response = try await call("get \(key)", retry: .idempotent) { member in
            try await member.kv.range(request, metadata: metadata, options: unaryOptions)
        }
        return response.kvs.first.map(EtcdKeyValue.init)
    }

    /// The store's current revision.
    public func currentRevision() async throws -> Int64 {
        let request = Etcdserverpb_RangeRequest.with { $0.key = Data([0]); $0.countOnly = true }
        let response = try await call("revision", retry: .idempotent) { member in
            try await member.kv.range(request, metadata: metadata, options: unaryOptions)
        }
        return response.header.revision
    }

    /// Puts one key (attached to `lease` when given); returns the store revision of the write.
    @discardableResult
    public func put(_ key: String, _ value: [UInt8], lease: EtcdLease? = nil) async throws -> Int64 {
        let request = Etcdserverpb_PutRequest.with {
            $0.key = Data(key.utf8)
            $0.value = Data(value)
            $0.lease = lease?.id ?? 0
        }
        let response = try await call("put \(key)", retry: .write) { member in
            try await member.kv.put(request, metadata: metadata, options: unaryOptions)
        }
        return response.header.revision
    }

    /// Deletes every key under `prefix`; returns how many were deleted.
    @discardableResult
    public func delete(prefix: String) async throws -> Int64 {
        let request = Etcdserverpb_DeleteRangeRequest.with {
            $0.key = Data(prefix.utf8)
            $0.rangeEnd = EtcdKeys.prefixEnd(prefix)
        }
        let response = try await call("delete \(prefix)*", retry: .write) { member in
            try await member.kv.deleteRange(request, metadata: metadata, options: unaryOptions)
        }
        return response.deleted
    }

    /// Discards the history before `revision` (reads and watches of older revisions then fail
    /// with `.compacted`). `physical` waits until the space is actually reclaimed.
    public func compact(to revision: Int64, physical: Bool = false) async throws {
        let request = Etcdserverpb_CompactionRequest.with {
            $0.revision = revision
            $0.physical = physical
        }
        _ = try await call("compact to \(revision)", retry: .write) { member in
            try await member.kv.compact(request, metadata: metadata, options: unaryOptions)
        }
    }
}

/// Key arithmetic etcd's range API is expressed in.
enum EtcdKeys {
    /// The end of the range of keys starting with `prefix`: the prefix with its last byte below
    /// 0xff incremented (and what follows dropped); `\0` ("every key") for "" or all-0xff.
    static func prefixEnd(_ prefix: String) -> Data {
        var bytes = [UInt8](prefix.utf8)
        while let last = bytes.last {
            if last < 0xff {
                bytes[bytes.count - 1] = last + 1
                return Data(bytes)
            }
            bytes.removeLast()
        }
        return Data([0])
    }
}
