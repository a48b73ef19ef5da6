/// How hard the journal pushes commits to disk before a command is acknowledged.
public enum JournalDurability: String, Sendable, CaseIterable {
    /// `synchronous=FULL`: an acknowledged command survives power loss.
    case full
    /// `synchronous=NORMAL` (WAL): survives a crash of the process, not of the machine.
    case normal
    /// No journal at all (benchmarks of the in-memory path only). State is lost on restart.
    case off
}
