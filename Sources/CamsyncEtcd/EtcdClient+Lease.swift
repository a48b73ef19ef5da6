extension EtcdClient {
    /// Grants a lease of `ttlSeconds` (etcd may raise it to its minimum; the granted TTL is returned).
    public func grantLease(ttlSeconds: Int64) async throws -> EtcdLease {
        let request = Etcdserverpb_LeaseGrantRequest.with { $0.ttl = ttlSeconds }
        let response = try await call("grant lease", retry: .write) { member in
            try await member.lease.leaseGrant(request, metadata: metadata, options: unaryOptions)
        }
        guard response.error.isEmpty else { throw EtcdError(.rejected, "grant lease: \(response.error)") }
        return EtcdLease(id: response.id, ttlSeconds: response.ttl)
    }

    /// Renews `lease` once; returns the TTL etcd reset it to. Throws `.leaseExpired` when etcd no
    /// longer has the lease. Each member is given `attemptTimeout` (default: the request timeout)
    /// before the next is asked.
    @discardableResult
    public func renew(_ lease: EtcdLease, attemptTimeout: Duration? = nil) async throws -> Int64 {
        let request = Etcdserverpb_LeaseKeepAliveRequest.with { $0.id = lease.id }
        var options = unaryOptions
        if let attemptTimeout { options.timeout = attemptTimeout }
        let ttl = try await call("renew lease \(lease.hex)", retry: .idempotent) { [options] member in
            try await member.lease.leaseKeepAlive(metadata: metadata, options: options) { writer in
                try await writer.write(request)
            } onResponse: { response in
                for try await message in response.messages { return message.ttl }
                throw EtcdError(.protocolViolation, "renew lease \(lease.hex): the stream ended without an answer")
            }
        }
        guard ttl > 0 else { throw EtcdError(.leaseExpired, "lease \(lease.hex) has expired or was revoked") }
        return ttl
    }

    /// Keeps `lease` alive, renewing it every `interval` (default: a third of its TTL), until the
    /// calling task is cancelled. Throws `.leaseExpired` when etcd says the lease is gone, or when
    /// no renewal sent within the last TTL succeeded (then it has expired on etcd's side too).
    /// `renewed` is told, after each renewal, how long the lease is now known to live (the TTL from
    /// when that renewal was sent), e.g. so that a leader stops acting as one before it can expire.
    public func keepAlive(_ lease: EtcdLease, every interval: Duration? = nil,
                          renewed: @Sendable (_ knownToLive: Duration) -> Void = { _ in }) async throws {
        let ttl = Duration.seconds(lease.ttlSeconds)
        let interval = interval ?? ttl / 3
        let clock = ContinuousClock()
        var renewedAt = clock.now
        while true {
            let sent = clock.now
            do {
                try await renew(lease)
                renewedAt = sent
                renewed(ttl - (clock.now - sent))
            } catch let error as EtcdError where error.code != .leaseExpired {
                if clock.now - renewedAt >= ttl {
                    throw EtcdError(.leaseExpired, "lease \(lease.hex) not renewed within its TTL of \(lease.ttlSeconds) s; last error: \(error)")
                }
            }
            try await Task.sleep(for: interval)
        }
    }

    /// Revokes `lease`: its keys are deleted at once. A lease that is already gone is not an error.
    public func revoke(_ lease: EtcdLease) async throws {
        let request = Etcdserverpb_LeaseRevokeRequest.with { $0.id = lease.id }
        do {
            _ = try await call("revoke lease \(lease.hex)", retry: .write) { member in
                try await member.lease.leaseRevoke(request, metadata: metadata, options: unaryOptions)
            }
        } catch let error as EtcdError where error.code == .leaseExpired {
            return
        }
    }
}

extension EtcdLease {
    /// The id as etcd's tools print it (hex).
    public var hex: String { String(UInt64(bitPattern: id), radix: 16) }
}
