extension ClusterState {
    /// Changes an installed app's record where it lies in the table: one look-up for any number of
    /// writes. (`apps[id]?.field = value` moves the whole record out of the table and back for every
    /// write: about 150 ns a write on this machine's benchmark, against 25 ns here; docs/PERFORMANCE.md.)
    /// Nothing happens for an app that is not installed, as with the optional chain.
    @inline(__always)
    mutating func updateApp(_ id: AppID, _ change: (inout AppRecord) -> Void) {
        guard let position = apps.index(forKey: id) else { return }
        change(&apps.values[position])
    }
}
