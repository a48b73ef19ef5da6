public import CamsyncClient
import CamsyncPolicy
public import CamsyncEtcd
import Foundation
import Hummingbird
public import Logging
public import Prometheus
public import ServiceLifecycle
public import CamsyncEtcdModel

/// A daemon's read-only HTTP side (`--http`): `/metrics` in the Prometheus text format, and on the
/// coordinator the live web view (`/`, `/events` as server-sent events, `/device.json`, `/state.json`). It takes no
/// actions and shares no socket with the command and event endpoints; anything else is 404.
public final class ObservationServer: Sendable {
    public let address: HTTPAddress
    let registry: PrometheusCollectorRegistry
    let logger: Logger
    let feed: WebFeed?
    let follower: ClusterFollower?
    let watcher: HighAvailabilityWatcher?

    /// `follow`: the coordinator's endpoints once bound (nil until then), to serve the web view and the
    /// cluster gauges; nil on a node. `curve`: the follower's keys at a CURVE coordinator.
    public init(address: HTTPAddress, registry: PrometheusCollectorRegistry,
                follow: (@Sendable () -> (commandEndpoint: String, eventEndpoint: String)?)? = nil,
                curve: ClientCurve? = nil, highAvailability: (etcd: [EtcdEndpoint], election: String, tls: EtcdClientTLS?)? = nil,
                logger: Logger) {
        self.address = address
        self.registry = registry
        self.logger = logger
        if let follow {
            let feed = WebFeed()
            self.feed = feed
            follower = ClusterFollower(endpoints: follow, feed: feed, curve: curve, logger: logger)
            watcher = HighAvailabilityWatcher(own: follow, election: highAvailability.map { .init(etcd: $0.etcd, prefix: $0.election, tls: $0.tls) },
                                              feed: feed, curve: curve)
        } else {
            feed = nil
            follower = nil
            watcher = nil
        }
    }

    /// The service to run beside the daemon; `onBound` gets the address actually bound (port 0 resolved).
    public func service(onBound: @escaping @Sendable (HTTPAddress) -> Void = { _ in }) -> some Service {
        var serverLogger = logger
        serverLogger.logLevel = max(logger.logLevel, .warning)
        let host = address.host
        let app = Application(
            router: makeRouter(),
            configuration: .init(address: .hostname(host, port: address.port), serverName: "camsync"),
            onServerRunning: { channel in
                onBound(HTTPAddress(host: host, port: channel.localAddress?.port ?? 0))
            },
            logger: serverLogger)
        return ObservationService(app: app, follower: follower, watcher: watcher, feed: feed)
    }

    func makeRouter() -> Router<BasicRequestContext> {
        let router = Router()
        let registry = self.registry
        router.get("metrics") { _, _ -> Response in
            Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                     body: ResponseBody(byteBuffer: ByteBuffer(bytes: registry.emitToBuffer())))
        }
        guard let feed else { return router }
        router.get("/") { _, _ -> Response in
            Response(status: .ok, headers: [.contentType: "text/html; charset=utf-8"],
                     body: ResponseBody(byteBuffer: ByteBuffer(string: WebPage.html)))
        }
        router.get("state.json") { _, _ -> Response in
            Self.json(feed.wholeJSON())
        }
        router.get("why.json") { request, _ -> Response in
            let text = request.uri.queryParameters.get("app") ?? ""
            guard let slash = text.firstIndex(of: "/"), slash != text.startIndex, text.index(after: slash) != text.endIndex else {
                return Self.error(.badRequest, "give the app as ?app=NODE/BUNDLE-ID, e.g. ?app=ipad-1/com.example.videocall")
            }
            let app = AppID(device: NodeID(String(text[..<slash])), bundleID: String(text[text.index(after: slash)...]))
            guard let json = feed.whyJSON(app: app) else { return Self.error(.notFound, "no app \(app) in the cluster") }
            return Self.json(json)
        }
        router.get("device.json") { request, _ -> Response in
            guard let id = request.uri.queryParameters.get("id"), !id.isEmpty else {
                return Self.error(.badRequest, "give the device as ?id=NODE, e.g. ?id=ipad-1")
            }
            guard let json = feed.deviceJSON(id) else { return Self.error(.notFound, "no node \(id) in the cluster") }
            return Self.json(json)
        }
        router.get("history.json") { request, _ -> Response in
            guard let text = request.uri.queryParameters.get("sequence"), let sequence = UInt64(text) else {
                return Self.error(.badRequest, "give the sequence as ?sequence=N, a whole number")
            }
            guard let json = feed.historyJSON(sequence: sequence, device: request.uri.queryParameters.get("device")) else {
                return Self.error(.notFound, "sequence \(sequence) is not in the history this web view holds")
            }
            return Self.json(json)
        }
        router.get("events") { _, _ -> Response in
            let stream = feed.subscribe()
            return Response(
                status: .ok,
                headers: [.contentType: "text/event-stream", .cacheControl: "no-cache"],
                body: ResponseBody { writer in
                    for await message in stream {
                        try await writer.write(ByteBuffer(string: message))
                    }
                    try await writer.finish(nil)
                })
        }
        return router
    }

    /// A JSON document.
    static func json(_ text: String) -> Response {
        Response(status: .ok, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }

    /// Bad input is an answer: a JSON error with a code and a message.
    static func error(_ status: HTTPResponse.Status, _ message: String) -> Response {
        struct Body: Encodable { var code: Int; var error: String }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        let body = (try? encoder.encode(Body(code: status.code, error: message))) ?? Data()
        return Response(status: status, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
    }
}

/// Runs the HTTP application; on graceful shutdown ends the page streams (so the server is not left
/// waiting on open `/events` responses) and stops the follower.
struct ObservationService<App: ApplicationProtocol>: Service {
    let app: App
    let follower: ClusterFollower?
    let watcher: HighAvailabilityWatcher?
    let feed: WebFeed?

    func run() async throws {
        follower?.start()
        watcher?.start()
        try await withGracefulShutdownHandler {
            try await app.run()
        } onGracefulShutdown: {
            feed?.finishAll()
            follower?.stop()
            watcher?.stop()
        }
        follower?.stop()
        watcher?.stop()
    }
}
