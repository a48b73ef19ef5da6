import CZMQ

/// A ZAP handler (RFC 27) that admits CURVE clients by public key.
///
/// It owns a thread with a REP socket bound to `inproc://zeromq.zap.01` in the given context.
/// A CURVE server socket in that context asks it about every client handshake: a client whose
/// public key (Z85) is in `allowedPublicKeys` is answered 200 with User-Id = that key (read
/// it back as `ZMQMessage.userID`); anything else, including non-CURVE mechanisms, gets 400.
///
/// **Ordering matters.** libzmq only consults a ZAP handler that is bound when the handshake
/// happens; *without one, a CURVE server admits any client key*. So create the authenticator
/// (its initializer returns after the bind) before CURVE server sockets bind or accept, and
/// stop it only after they are closed. There can be one per context (a second one fails
/// with EADDRINUSE).
///
/// Thread safe: the allowed set can be replaced from any thread at any time; it applies to
/// handshakes from then on (established connections are not re-checked).
///
/// Refused clients: libzmq 4.3 ends a client's session after a refused handshake and does
/// not retry it, so a client whose key is admitted later must `disconnect` and `connect`
/// again (or use a new socket).
///
/// Sockets in the same context that use the NULL mechanism with a non-empty ZAP_DOMAIN are
/// also sent here, and refused (400): this handler admits CURVE clients only.
public final class ZAPAuthenticator: Sendable {
    /// The endpoint libzmq sends ZAP requests to (fixed by RFC 27).
    public static let endpoint = "inproc://zeromq.zap.01"

    private struct State: Sendable {
        var allowed: Set<String>
        /// Keys refused new connections until the instant given (their established ones are kept).
        var suspended: [String: ContinuousClock.Instant] = [:]
        var admitted = 0
        var refused = 0
        var stopRequested = false
    }

    private let state: Locked<State>
    private let thread: JoinableThread

    /// How long the handler thread waits for a request before checking for `stop()`;
    /// bounds how long `stop()` takes.
    static let pollIntervalMs = 50

    /// Binds the handler in `context` and starts its thread.
    /// - Throws: `ZMQError` if the bind fails (EADDRINUSE: the context already has a handler).
    public init(context: ZMQContext, allowedPublicKeys: Set<String>) throws {
        let state = Locked(State(allowed: allowedPublicKeys))
        let socket = try ZMQSocket(context, .rep)
        try socket.set([.linger(milliseconds: 0), .receiveTimeout(milliseconds: Self.pollIntervalMs)])
        try socket.bind(Self.endpoint)
        self.state = state
        self.thread = try JoinableThread {
            Self.serve(socket, state)
            // Unbinding an inproc endpoint takes effect at once, while close is completed
            // later by libzmq's reaper: unbind first so the endpoint is free when stop() returns.
            try? socket.unbind(Self.endpoint)
            socket.close()
        }
    }

    deinit {
        stop()
    }

    /// The Z85 public keys admitted from now on.
    public var allowedPublicKeys: Set<String> {
        get { state.withLock { $0.allowed } }
    }

    /// Replaces the admitted keys; applies to every later handshake.
    public func setAllowedPublicKeys(_ keys: Set<String>) {
        state.withLock { $0.allowed = keys }
    }

    /// How many handshakes were admitted so far.
    /// Refuses new connections with `key` for `duration` (connections already admitted are kept):
    /// for a key caught misusing another node's route, so its reconnects cannot take the route again.
    public func suspend(key: String, for duration: Duration) {
        let until = ContinuousClock.now.advanced(by: duration)
        state.withLock { $0.suspended[key] = until }
    }

    public var admittedCount: Int { state.withLock { $0.admitted } }
    /// How many handshakes were refused so far (unknown key, wrong mechanism, bad request).
    public var refusedCount: Int { state.withLock { $0.refused } }

    /// Stops the handler thread and closes its socket; returns within about 50 ms.
    /// Idempotent. After this, CURVE servers in the context admit every client again.
    public func stop() {
        state.withLock { $0.stopRequested = true }
        if !thread.isCurrent { thread.join() }
    }

    // MARK: - The handler thread

    private static func serve(_ socket: ZMQSocket, _ state: Locked<State>) {
        while !state.withLock({ $0.stopRequested }) {
            let request: ZMQMessage
            do {
                guard let received = try socket.receive() else { continue }  // poll interval
                request = received
            } catch {
                return  // ETERM (context shut down) or socket closed: nothing more to serve
            }
            let reply = answer(request.frames, state)
            do {
                try socket.send(reply)
            } catch {
                return
            }
        }
    }

    /// The ZAP reply frames for a request: version, request id, status code, status text,
    /// user id, metadata.
    private static func answer(_ frames: [[UInt8]], _ state: Locked<State>) -> [[UInt8]] {
        let version = Array("1.0".utf8)
        // Request: version, request id, domain, address, routing id, mechanism, credentials…
        guard frames.count >= 6, frames[0] == version else {
            state.withLock { $0.refused += 1 }
            let requestID = frames.count >= 2 ? frames[1] : []
            return [version, requestID, Array("400".utf8), Array("malformed ZAP request".utf8), [], []]
        }
        let requestID = frames[1]
        let mechanism = String(decoding: frames[5], as: UTF8.self)
        if mechanism == "CURVE", frames.count >= 7,
           let key = CurveKeyPair.z85(encoding: frames[6]) {
            let now = ContinuousClock.now
            let admitted = state.withLock { s -> Bool in
                if let until = s.suspended[key], until <= now { s.suspended[key] = nil }
                let ok = s.allowed.contains(key) && s.suspended[key] == nil
                if ok { s.admitted += 1 } else { s.refused += 1 }
                return ok
            }
            if admitted {
                return [version, requestID, Array("200".utf8), Array("OK".utf8), Array(key.utf8), []]
            }
            return [version, requestID, Array("400".utf8), Array("unknown key".utf8), [], []]
        }
        state.withLock { $0.refused += 1 }
        return [version, requestID, Array("400".utf8), Array("mechanism not allowed".utf8), [], []]
    }
}
