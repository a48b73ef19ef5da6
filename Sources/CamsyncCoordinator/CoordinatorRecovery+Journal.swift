import CamsyncCoordinatorCore
import Logging

/// K3 for the embedded coordinator: its SQLite journal, read a page at a time.
extension CoordinatorRecovery {
    static func recover(journal: Journal, settings: CoordinatorSettings, logger: Logger) throws -> CoordinatorCore {
        let term = try journal.beginTerm()
        let snapshot = try journal.latestSnapshot()
        var core = try start(settings: settings, term: term, snapshot: snapshot)
        var replayed = 0
        var after: UInt64 = 0
        while true {
            let page = try journal.commands(after: after, limit: pageSize)
            guard let last = page.last else { break }
            replayed += try replay(page, into: &core, snapshotSequence: snapshot?.sequence ?? 0)
            after = last.sequence
        }
        logger.info("journal recovered", metadata: [
            "term": "\(term)", "replayed": "\(replayed)", "sequence": "\(core.sequence)",
        ])
        return core
    }
}
