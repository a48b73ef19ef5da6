/// What work costs a simulated process, in microseconds of its one loop thread (the publisher's for
/// copies): the one table the simulated world charges from, so that a turn that takes 5,000
/// registrations takes time there too. The figures are the benchmarks' own per-operation costs on
/// this kind of machine (docs/OPERATIONS.md "What a node costs": a command on the leader's loop
/// thread ≈ 16–20 µs, a standby following a batch ≈ 7–9 µs, a node heartbeat's own handling ≈ 1.4 µs,
/// the rest of it ZeroMQ's I/O threads). Nodes' work is not charged yet.
struct SimWorkCosts {
    /// A frame taken off the command socket and decoded.
    var frame: Int64 = 2
    /// A command through the engine, with its batch, on the leader.
    var command: Int64 = 18
    /// One reply sent.
    var reply: Int64 = 1
    /// One copy of a publication handed to one subscriber's pipe (the publisher's thread).
    var copy: Int64 = 3
    /// A batch of the log a standby applies.
    var followedBatch: Int64 = 8
    /// A snapshot made and encoded for one request: a group's (a few hundred bytes) costs about the
    /// first, the whole state's the second too, per kilobyte (`camsync bench fleet`'s leader probes:
    /// ≈ 100 ms for the 2.3 MB state of 10,000 nodes).
    var snapshot: Int64 = 40
    var snapshotPerKilobyte: Int64 = 44
    /// One logged batch encoded for a commit.
    var loggedBatch: Int64 = 2

    /// The same work on a machine `factor` times slower (a slow-process fault: CPU starved).
    func slowed(by factor: Int64) -> SimWorkCosts {
        SimWorkCosts(frame: frame * factor, command: command * factor, reply: reply * factor, copy: copy * factor,
                     followedBatch: followedBatch * factor, snapshot: snapshot * factor,
                     snapshotPerKilobyte: snapshotPerKilobyte * factor, loggedBatch: loggedBatch * factor)
    }

    /// A snapshot of `bytes` encoded.
    func snapshot(bytes: Int) -> Int64 { snapshot + snapshotPerKilobyte * Int64(bytes / 1024) }

    /// Work that ends within this much of the phase's start runs on without yielding to other
    /// events (its time is still charged, to the next phase).
    static let yieldAfter: Int64 = 100
}
