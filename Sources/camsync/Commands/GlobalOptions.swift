public import ArgumentParser
public import Logging

/// Options every daemon and client shares.
struct GlobalOptions: ParsableArguments {
    @Option(name: .long, help: "Log level: trace, debug, info, notice, warning, error, critical.")
    var logLevel: Logger.Level = .info

    /// Bootstraps swift-log once for this process: plain lines on stderr.
    func bootstrapLogging() {
        let level = logLevel
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
    }
}

extension Logger.Level: @retroactive ExpressibleByArgument {}
