import Testing
@testable import ZeroMQ

@Suite struct CurveKeyTests {
    @Test func generateGivesZ85KeysAndPublicDerivesFromSecret() throws {
        let pair = try CurveKeyPair.generate()
        #expect(pair.publicKey.utf8.count == 40)
        #expect(pair.secretKey.utf8.count == 40)
        #expect(CurveKeyPair.isValidZ85Key(pair.publicKey))
        #expect(CurveKeyPair.isValidZ85Key(pair.secretKey))
        #expect(pair.publicKey != pair.secretKey)

        let derived = try CurveKeyPair(secretKey: pair.secretKey)
        #expect(derived.publicKey == pair.publicKey)
        #expect(derived == pair)
        #expect(try CurveKeyPair.publicKey(forSecretKey: pair.secretKey) == pair.publicKey)
        #expect(try CurveKeyPair.generate() != pair)
    }

    @Test(arguments: ["", "too short", String(repeating: "a", count: 41), String(repeating: "~", count: 40)])
    func invalidSecretKeyThrows(_ secret: String) {
        #expect(throws: ZMQError.self) { _ = try CurveKeyPair(secretKey: secret) }
    }

    @Test func secretNeverAppearsInDescriptions() throws {
        let pair = try CurveKeyPair.generate()
        var dumped = ""
        dump(pair, to: &dumped)
        let texts = [
            pair.description, pair.debugDescription, "\(pair)", String(reflecting: pair), dumped,
            "\([pair])", "\(Optional(pair) as Any)",
        ]
        for text in texts {
            #expect(!text.contains(pair.secretKey))
        }
        #expect(pair.description.contains(pair.publicKey))

        let option = SocketOption.curveSecretKey(pair.secretKey)
        var dumpedOption = ""
        dump(option, to: &dumpedOption)
        for text in [option.description, option.debugDescription, "\(option)", String(reflecting: option), dumpedOption, "\([option])"] {
            #expect(!text.contains(pair.secretKey))
        }
        #expect("\(SocketOption.curvePublicKey(pair.publicKey))".contains(pair.publicKey))
    }
}
