/// Bugs planted on purpose, each behind this switch (`CoordinatorSettings.plantedBug`,
/// `NodeSettings.plantedBug`), so that a test can show the simulator's oracle catches them
/// (`camsync sim --plant`). Besides the simulator, only the HA soak's test sets one, on a real
/// coordinator (its hidden `--plant-bug`), to show that the partition nemesis bites.
public enum PlantedBug: String, Sendable, Equatable, CaseIterable {
    /// A turn's replies and publications leave before its commit is durable.
    case acknowledgeBeforeDurable = "ack-before-durable"
    /// A coordinator taking over keeps no retry window (K5) from the log it applied.
    case forgetRetryWindowOnFailover = "forget-retry-window"
    /// A coordinator that leads again keeps the silence it measured before (K7).
    case skipLivenessReset = "skip-liveness-reset"
    /// A standby that wins the election leads at once, without reading the log after its own
    /// sequence first (K6: a win catches up before it leads).
    case leadWithoutCatchingUp = "lead-without-catch-up"
    /// A coordinator started from a snapshot forgets the device groups' last sequences the snapshot
    /// keeps: the next batch of a group untouched since names no previous batch.
    case forgetGroupSequences = "forget-group-sequences"
    /// A turn hears the leader's pulse only when its poll reported one: a pulse that arrives while the
    /// turn applies the log or takes frames waits for the next poll, after `tick` judged the silence.
    case pulseOnlyWhenPolled = "pulse-only-when-polled"
    /// A leader judges its nodes' silence up to the clock, not up to the last instant it had taken
    /// every frame waiting: a leader stalled after its frames declares nodes dead whose heartbeats
    /// wait unread (K7).
    case judgeSilenceAtClock = "judge-silence-at-clock"
    /// A node drops an error reply to its snapshot request, and nothing asks again: it stays unsynced.
    case dropSnapshotError = "drop-snapshot-error"
    /// A node applies a batch of its device group whose previous batch (in the group) it never saw,
    /// instead of replaying the gap.
    case applyAcrossGroupGap = "apply-across-group-gap"
    /// A leader ignores its lease: it goes on leading when the lease is no longer known to live, or
    /// is lost, until a write fails (K6: a leader cut off from etcd stops within its lease).
    case ignoreLease = "ignore-lease"
    /// A leader pushes each batch also to a node of another device group, on that node's connection:
    /// a group's data reaches an identity outside the group (read authority is addressing).
    case pushToAnotherGroup = "push-to-another-group"
    /// A leader encodes the whole state's snapshot once for each request of a turn, not once for
    /// all of them: observers asking together stall its turn past the suspicion window.
    case encodeEachSnapshot = "encode-each-snapshot"
}
