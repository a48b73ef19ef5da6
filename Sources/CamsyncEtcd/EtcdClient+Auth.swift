import Foundation

/// One camsync cluster's access to etcd: `role` reads and writes `prefix/…` and nothing else, and
/// `users` (the common names of its coordinators' client certificates) have it.
public struct EtcdAccessGrant: Sendable, Equatable {
    public var prefix: String
    public var role: String
    public var users: [String]
    public init(prefix: String, role: String, users: [String]) {
        self.prefix = prefix
        self.role = role
        self.users = users
    }
}

// Every call here is idempotent (an existing user or role is left as it is; granting twice is
// granting once), so each is retried like a read, on a timeout too (`Retry.idempotent`): the setup
// runs while etcd may still be settling on a loaded machine.
extension EtcdClient {
    /// Sets up every grant (`grantPrefix`), then turns auth on (`enableAuth`). Idempotent; run as
    /// root (or before auth is on).
    public func secure(_ grants: [EtcdAccessGrant]) async throws {
        for grant in grants { try await grantPrefix(grant.prefix, role: grant.role, users: grant.users) }
        try await enableAuth()
    }

    /// etcd auth for one camsync cluster (docs/OPERATIONS.md "etcd auth"): role `role` may read and
    /// write the keys under `prefix/` and nothing else; each of `users` (the common names of the
    /// coordinators' client certificates; no password: they authenticate by certificate) has that
    /// role. Idempotent: what exists already is left as it is. Needs the root user (with auth on) or
    /// auth off.
    public func grantPrefix(_ prefix: String, role: String, users: [String]) async throws {
        try await tolerateExisting { try await addRole(role) }
        let scope = prefix.hasSuffix("/") ? prefix : prefix + "/"
        let grant = Etcdserverpb_AuthRoleGrantPermissionRequest.with {
            $0.name = role
            $0.perm = Authpb_Permission.with {
                $0.permType = .readwrite
                $0.key = Data(scope.utf8)
                $0.rangeEnd = EtcdKeys.prefixEnd(scope)
            }
        }
        _ = try await call("grant \(role) \(scope)*", retry: .idempotent) { member in
            try await member.auth.roleGrantPermission(grant, metadata: metadata, options: unaryOptions)
        }
        for user in users {
            try await tolerateExisting { try await addUser(user) }
            let request = Etcdserverpb_AuthUserGrantRoleRequest.with { $0.user = user; $0.role = role }
            _ = try await call("grant \(role) to \(user)", retry: .idempotent) { member in
                try await member.auth.userGrantRole(request, metadata: metadata, options: unaryOptions)
            }
        }
    }

    /// Turns auth on, first making the `root` user (certificate-only) with the `root` role, which
    /// etcd requires. Idempotent. From then on every request needs a user: with `--client-cert-auth`
    /// the common name of the client's certificate.
    public func enableAuth() async throws {
        try await tolerateExisting { try await addUser("root") }
        let grant = Etcdserverpb_AuthUserGrantRoleRequest.with { $0.user = "root"; $0.role = "root" }
        _ = try await call("grant root to root", retry: .idempotent) { member in
            try await member.auth.userGrantRole(grant, metadata: metadata, options: unaryOptions)
        }
        _ = try await call("auth enable", retry: .idempotent) { member in
            try await member.auth.authEnable(Etcdserverpb_AuthEnableRequest(), metadata: metadata, options: unaryOptions)
        }
    }

    /// Removes user `name` (a retired coordinator's certificate stops working at once, even unexpired).
    public func deleteUser(_ name: String) async throws {
        let request = Etcdserverpb_AuthUserDeleteRequest.with { $0.name = name }
        _ = try await call("delete user \(name)", retry: .idempotent) { member in
            try await member.auth.userDelete(request, metadata: metadata, options: unaryOptions)
        }
    }

    /// Adds user `name`, authenticated by certificate only (no password), with no role yet.
    public func addUser(_ name: String) async throws {
        let request = Etcdserverpb_AuthUserAddRequest.with {
            $0.name = name
            $0.options = Authpb_UserAddOptions.with { $0.noPassword = true }
        }
        _ = try await call("add user \(name)", retry: .idempotent) { member in
            try await member.auth.userAdd(request, metadata: metadata, options: unaryOptions)
        }
    }

    private func addRole(_ name: String) async throws {
        let request = Etcdserverpb_AuthRoleAddRequest.with { $0.name = name }
        _ = try await call("add role \(name)", retry: .idempotent) { member in
            try await member.auth.roleAdd(request, metadata: metadata, options: unaryOptions)
        }
    }

    /// Runs `operation`, ignoring etcd's "already exists" refusal.
    private func tolerateExisting(_ operation: () async throws -> Void) async throws {
        do { try await operation() } catch let error as EtcdError where error.message.contains("already exists") {}
    }
}
