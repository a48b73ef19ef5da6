import CamsyncCoordinator
import CamsyncCoordinatorCore

/// A leader that no fault touched is never deposed: a load the cluster is built for (a join storm, a
/// rejoin after a failover) must not cost a leadership move. A step-down is judged healthy-leader
/// deposition when, for a lease TTL and half a second before it (the longest a fault's effect on
/// leadership lasts after it heals: an expiring lease), no fault disturbed the leader, the store or
/// the whole network (`disturb`).
extension Simulation {

    /// The standbys' suspicion window, as the simulated coordinators are set up (`startCoordinator`).
    var suspicionMilliseconds: Int64 {
        HighAvailabilitySettings(etcd: [], name: "", leaseSeconds: options.leaseSeconds).suspicionMilliseconds
    }

    /// A standby never suspects a leader whose pulse reached it within the suspicion window: it must
    /// hear every pulse that has arrived before it judges the leader silent.
    func checkSuspicion(by c: Int) {
        guard let leader = coordinators[c].listeningTo, let delivered = coordinators[c].pulseDelivered,
              // The core's clock counts whole milliseconds: a pulse heard at 10.9 ms is heard at 10.
              delivered.from == leader, now - delivered.at < (suspicionMilliseconds - 2) * 1000 else { return }
        violation("\(coordinators[c].name) suspected \(coordinators[leader].name), whose pulse reached it "
                  + "\((now - delivered.at) / 1000) ms before (suspicion window \(suspicionMilliseconds) ms)")
    }

    func roleChanged(_ c: Int, leading: Bool, term: UInt64) {
        guard !leading else {
            leadingSince[c] = now
            return
        }
        leadingSince[c] = nil
        let window = options.leaseSeconds * 1_000_000 + 500_000
        let touched = [disturbedUntil[.coordinator(c)], stalledUntil[c], disturbedUntil[.store], everyoneDisturbedUntil].compactMap { $0 }.max() ?? 0
        guard touched < now - window else { return }
        violation("a healthy leader was deposed: \(coordinators[c].name) stopped leading term \(term), though no fault "
                  + "touched it, the store or the network for the last \(window / 1000) ms")
    }
}
