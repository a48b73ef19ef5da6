import CamsyncCoordinatorCore
import CamsyncRuntime
import CamsyncWire
import ZeroMQ

extension CoordinatorSettings {
    /// What an HA coordinator advertises (nil embedded): `--advertise-*`, else the first endpoint of
    /// each setting, unless it asks for any port (`:*`, `:0`), which only the bound socket knows.
    func advertisedAddress(bound: CoordinatorServer.Endpoints) -> Camsync_V1_CoordinatorAddress? {
        guard let ha = highAvailability else { return nil }
        func pick(_ advertised: String, _ setting: String, _ bound: String) -> String {
            if !advertised.isEmpty { return advertised }
            guard let first = EndpointList.entries(in: setting).first, !first.contains("*"), !first.hasSuffix(":0") else { return bound }
            return first
        }
        var address = Camsync_V1_CoordinatorAddress()
        address.name = ha.name
        address.commandEndpoint = pick(ha.advertisedCommandEndpoint, commandEndpoint, bound.command)
        address.eventEndpoint = pick(ha.advertisedEventEndpoint, eventEndpoint, bound.event)
        // Its own key: clients connect to it with this server key, and believe it only if they list it.
        if let secretKey = security?.secretKey { address.publicKey = (try? CurveKeyPair.publicKey(forSecretKey: secretKey)) ?? "" }
        return address
    }
}
