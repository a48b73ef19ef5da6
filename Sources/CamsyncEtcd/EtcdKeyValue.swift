/// A key as etcd stores it, with the revisions that order it.
public struct EtcdKeyValue: Sendable, Equatable {
    public var key: String
    public var value: [UInt8]
    /// The revision of the store when this key was created (unchanged by later puts).
    public var createRevision: Int64
    /// The revision of the store at this key's last change.
    public var modRevision: Int64
    /// Number of puts since creation (1 for a new key).
    public var version: Int64
    /// The lease the key is attached to, 0 for none.
    public var lease: Int64

    public init(key: String, value: [UInt8], createRevision: Int64, modRevision: Int64, version: Int64, lease: Int64) {
        self.key = key
        self.value = value
        self.createRevision = createRevision
        self.modRevision = modRevision
        self.version = version
        self.lease = lease
    }

    init(_ kv: Mvccpb_KeyValue) {
        self.init(key: String(decoding: kv.key, as: UTF8.self), value: [UInt8](kv.value),
                  createRevision: kv.createRevision, modRevision: kv.modRevision, version: kv.version, lease: kv.lease)
    }
}

/// The answer to a range read: the keys, and the store's revision the read saw.
public struct EtcdRange: Sendable, Equatable {
    public var keyValues: [EtcdKeyValue]
    /// The store's revision at the read (read "as of" this revision).
    public var revision: Int64
    /// True when a `limit` cut the answer short.
    public var more: Bool
}

/// One change seen by a watch.
public struct EtcdWatchEvent: Sendable, Equatable {
    public enum Kind: String, Sendable, Equatable { case put, delete }
    public var kind: Kind
    /// The key after the change (for a delete: key and the deletion's revision, empty value).
    public var keyValue: EtcdKeyValue
    /// The store revision of the change.
    public var revision: Int64 { keyValue.modRevision }
}

/// A write inside a leadership-conditional commit.
public enum EtcdWrite: Sendable, Equatable {
    case put(key: String, value: [UInt8])
    case delete(key: String)
    /// Every key from `start` (inclusive) to `end` (exclusive).
    case deleteRange(from: String, to: String)
}
