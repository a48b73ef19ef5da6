import CamsyncWeb
import Foundation

/// The coordinator's endpoints once bound (port 0 resolved), for `--endpoints-file` and the web
/// follower, which connects to them from inside the process.
final class BoundEndpoints: @unchecked Sendable {
    private let lock = NSLock()
    private var command: String?
    private var event: String?
    private var http: HTTPAddress?

    func set(command: String, event: String) {
        lock.lock()
        self.command = command
        self.event = event
        lock.unlock()
    }

    func set(http: HTTPAddress) {
        lock.lock()
        self.http = http
        lock.unlock()
    }

    /// Where an in-process client connects: a wildcard bind is reached on loopback.
    var follow: @Sendable () -> (commandEndpoint: String, eventEndpoint: String)? {
        { [self] in
            lock.lock()
            defer { lock.unlock() }
            guard let command, let event else { return nil }
            func local(_ endpoint: String) -> String {
                endpoint.replacingOccurrences(of: "//0.0.0.0:", with: "//127.0.0.1:").replacingOccurrences(of: "//*:", with: "//127.0.0.1:")
            }
            return (local(command), local(event))
        }
    }

    /// `commands=…`, `events=…` and, once serving, `http=HOST:PORT`.
    func write(to path: String?) throws {
        guard let path else { return }
        lock.lock()
        var text = ""
        if let command, let event { text += "commands=\(command)\nevents=\(event)\n" }
        if let http { text += "http=\(http)\n" }
        lock.unlock()
        try text.write(toFile: path, atomically: true, encoding: .utf8)
    }
}
