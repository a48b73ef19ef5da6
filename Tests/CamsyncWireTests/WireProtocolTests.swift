import Testing
import CamsyncWire

@Test func protocolVersionIsTwo() {
    #expect(WireProtocol.version == 2)
}
