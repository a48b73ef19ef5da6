import Testing
import CamsyncWire

@Test func protocolVersionIsOne() {
    #expect(WireProtocol.version == 1)
}
