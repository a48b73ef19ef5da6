import CamsyncPolicy
import CamsyncWire
import Testing
@testable import CamsyncNode

/// Which coordinators a node believes, without sockets: each coordinator has a key pair of its own, and a node believes only the
/// coordinators its trusted set lists. A heartbeat or a NOT_LEADER naming a coordinator whose key is
/// not listed is not believed — not followed, its term (however high) not taken, not a sign of
/// life — and the node keeps following the leader it believes; the DEALER connects to each
/// coordinator with that coordinator's key.
@Suite struct NodeSessionTrustTests {
    typealias H = NodeSessionHarness

    /// A stand-in for coordinator `name`'s public key (the session compares keys as text).
    static func key(_ name: String) -> String { String(repeating: name, count: 40) }

    /// A node of coordinators a, b, c (each its own key, listed with its endpoints) that trusts `trusted`.
    static func settings(trusting trusted: [String] = ["a", "b", "c"]) -> NodeSettings {
        var settings = HA.settings()
        let entries = trusted.map {
            TrustedCoordinators.Entry(name: $0, publicKey: key($0), commandEndpoint: HA.commands($0), eventEndpoint: HA.events($0))
        }
        settings.security = NodeSecurity(publicKey: key("n"), secretKey: key("s"), coordinators: TrustedCoordinators(entries: entries))
        return settings
    }

    static func coordinator(_ name: String, term: UInt64) -> FakeCoordinator {
        var coordinator = FakeCoordinator.named(name, term: term)
        coordinator.publicKey = key(name)
        return coordinator
    }

    /// Joined through "a", leading in term 100.
    static func joinedThroughA(settings: NodeSettings = settings()) throws -> (NodeSession, FakeCoordinator) {
        let (session, a) = try H.joined(settings: settings, coordinator: coordinator("a", term: 100))
        #expect(session.followed == .init(commandEndpoint: HA.commands("a"), term: 100))
        #expect(session.followedServerKey == key("a"))
        return (session, a)
    }

    enum Impostor: String, CaseIterable, CustomTestStringConvertible {
        /// A coordinator removed from the list (its key no longer trusted), still running.
        case removed
        /// A key nobody listed, at the endpoint of a listed coordinator.
        case unknownKeyAtListedEndpoint
        /// No key at all, at an endpoint no listed coordinator serves.
        case noKeyUnlistedEndpoint
        var testDescription: String { rawValue }

        /// Its address, claiming term 900 (far above the real leader's 100).
        var address: Camsync_V1_CoordinatorAddress {
            var address = Camsync_V1_CoordinatorAddress()
            address.term = 900
            switch self {
            case .removed:
                address.name = "c"
                address.commandEndpoint = HA.commands("c")
                address.publicKey = NodeSessionTrustTests.key("c")
            case .unknownKeyAtListedEndpoint:
                address.name = "b"
                address.commandEndpoint = HA.commands("b")
                address.publicKey = NodeSessionTrustTests.key("x")
            case .noKeyUnlistedEndpoint:
                address.name = "x"
                address.commandEndpoint = HA.commands("x")
            }
            return address
        }
    }

    @Test("a heartbeat from a coordinator whose key is not trusted is not heard: no term, no leader, no life",
          arguments: Impostor.allCases)
    func untrustedHeartbeatIgnored(impostor: Impostor) throws {
        var (session, a) = try Self.joinedThroughA(settings: Self.settings(trusting: ["a", "b"]))
        let heard = session.lastHeardFromCoordinator
        var x = a.failedOver(to: "x", term: 900)
        x.publicKey = impostor.address.publicKey
        var envelope = Envelope.coordinatorHeartbeat(term: 900, lastSequence: x.sequence + 50, time: x.time)
        if case .coordinatorHeartbeat(var heartbeat)? = envelope.body {
            heartbeat.coordinator = impostor.address
            envelope.body = .coordinatorHeartbeat(heartbeat)
        }
        let ignored = session.receivePublication([Array("hb".utf8), envelope.serializedBytes()], now: H.at(1000))
        #expect(ignored.metrics == [.untrustedCoordinatorIgnored])
        #expect(ignored.reconnects.isEmpty && ignored.requests.isEmpty, "neither followed nor replayed from")
        #expect(session.knownTerm == 100, "its higher term is refused")
        #expect(session.followed == .init(commandEndpoint: HA.commands("a"), term: 100) && session.followedServerKey == Self.key("a"))
        #expect(session.lastHeardFromCoordinator == heard, "not a sign of life")
        // The real leader goes on being followed: its next batch applies.
        let sequence = session.replica.sequence
        _ = session.receivePublication(try a.publish(.openFullScreen(H.app, trigger: .user)), now: H.at(1100))
        #expect(session.replica.sequence == sequence + 1 && session.replica.term == 100)
    }

    @Test("a NOT_LEADER naming a coordinator whose key is not trusted is not followed; the request stays pending",
          arguments: Impostor.allCases)
    func untrustedRedirectionIgnored(impostor: Impostor) throws {
        var (session, a) = try Self.joinedThroughA(settings: Self.settings(trusting: ["a", "b"]))
        let forwarded = try NodeSessionLeaderTests.forward(&session, at: 1000)
        let refused = session.receiveReply(a.notLeader(forwarded, leader: impostor.address, reason: "a standby"), now: H.at(1100))
        #expect(refused.metrics == [.untrustedCoordinatorIgnored])
        #expect(refused.reconnects.isEmpty && refused.controlReplies.isEmpty)
        #expect(session.followed.commandEndpoint == HA.commands("a") && session.knownTerm == 100)
        #expect(session.pending[forwarded.requestID] != nil, "retried on the schedule, still with its id")
    }

    enum Named: String, CaseIterable, CustomTestStringConvertible {
        /// A listed coordinator naming itself with its key.
        case listedWithKey
        /// A listed coordinator's address without a key (older than the field): its endpoint's listed key.
        case listedWithoutKey
        /// A listed key at an endpoint the node's lists do not hold (an advertised address).
        case listedKeyElsewhere
        var testDescription: String { rawValue }
    }

    @Test("a trusted coordinator named by a NOT_LEADER is followed, and the DEALER connects with its key",
          arguments: Named.allCases)
    func trustedRedirectionFollowed(named: Named) throws {
        var (session, a) = try Self.joinedThroughA()
        var leader = Camsync_V1_CoordinatorAddress()
        leader.name = "b"
        leader.term = 200
        leader.commandEndpoint = named == .listedKeyElsewhere ? "tcp://10.0.0.12:5555" : HA.commands("b")
        leader.publicKey = named == .listedWithoutKey ? "" : Self.key("b")
        let forwarded = try NodeSessionLeaderTests.forward(&session, at: 1000)
        let followed = session.receiveReply(a.notLeader(forwarded, leader: leader, reason: "a standby"), now: H.at(1100))
        let reconnect = try #require(followed.compactMap { action -> (String, String?)? in
            if case .follow(let endpoint, let key, false) = action { (endpoint, key) } else { nil }
        }.first)
        #expect(reconnect.0 == leader.commandEndpoint && reconnect.1 == Self.key("b"))
        #expect(followed.requests.map(\.requestID) == [forwarded.requestID], "resent at once with its id (K5)")
        #expect(followed.metrics == [.leaderFollowed])
    }

    @Test("while every coordinator is silent the next endpoint is tried with the key listed for it")
    func silenceTriesNextWithItsKey() throws {
        var (session, _) = try Self.joinedThroughA()
        // Silent for interval × liveness (1.5 s), then the first reconnect one interval later.
        _ = session.tick(now: H.at(300 + 1501))
        let reconnected = session.tick(now: H.at(300 + 1501 + 500))
        let keys = reconnected.compactMap { action -> String?? in if case .follow(_, let key, _) = action { key } else { nil } }
        #expect(reconnected.reconnectEndpoints == [HA.commands("b")])
        #expect(keys == [Self.key("b")])
    }

    @Test("endpoints of the lists that no trusted coordinator serves are never connected")
    func untrustedEndpointsDropped() {
        let settings = Self.settings(trusting: ["a", "c"])
        #expect(settings.coordinatorCommandEndpoints == [HA.commands("a"), HA.commands("c")])
        #expect(settings.coordinatorEventEndpoints == [HA.events("a"), HA.events("c")])
        #expect(settings.untrustedEndpoints == [HA.commands("b"), HA.events("b")])
        // One key for all (an embedded coordinator, `--coordinator-key`): every endpoint is its.
        var shared = HA.settings()
        shared.security = NodeSecurity(publicKey: Self.key("n"), secretKey: Self.key("s"), coordinatorPublicKey: Self.key("k"))
        #expect(shared.coordinatorCommandEndpoints.count == 3 && shared.untrustedEndpoints.isEmpty)
        #expect(NodeSession(settings: shared, now: H.at(0)).followedServerKey == Self.key("k"))
        #expect(NodeSession(settings: HA.settings(), now: H.at(0)).followedServerKey == nil, "no CURVE, no key")
    }
}
