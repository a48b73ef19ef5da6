public import CamsyncRuntime
import CamsyncWire
/// Turns valid frames into hostile ones. Byte-level mutations (bit flips, truncation, splices,
/// inserted and deleted runs) and structure-aware ones on the protobuf wire tree (field-value
/// swaps among known and unknown ids, unknown enum numbers and extreme integers, dropped,
/// duplicated and reordered fields, wrong protocol versions), plus hand-made monsters (huge
/// varints and lengths, deep group nesting, garbage).
public enum HostileMutator {
    public enum Kind: String, CaseIterable, Sendable {
        case bitFlip, truncate, splice, insertBytes, deleteRange, interestingByte
        case fieldSwap, varintValue, dropField, duplicateField, shuffleFields, wrongVersion
        case hugeVarint, hugeLength, deepNesting, garbage
    }

    /// Strings a field may be swapped to: known ids, unknown ids, empty, odd and long ones.
    public static let stringPool: [[UInt8]] = (
        HostileCorpus.nodePool.map(\.rawValue) + HostileCorpus.bundlePool + HostileCorpus.cameraPool
            + ["", " ", "\u{0}", "ipad-1\u{0}", String(repeating: "x", count: 300), "admin", "coordinator"]
    ).map { Array($0.utf8) } + [[0xFF, 0xFE], [0xC3]]  // invalid UTF-8

    /// Varint values: enum numbers just past the known ones, 0 (UNSPECIFIED), bool 2, extremes.
    public static let interestingVarints: [UInt64] = [
        0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 42, 99, 127, 128, 255, 256, 1 << 31 - 1, 1 << 31, 1 << 32 - 1, 1 << 32,
        1 << 53, UInt64(Int64.max), 1 << 63, UInt64.max, UInt64.max - 1,
    ]

    /// One mutation of `input`; `corpus` supplies splice partners.
    public static func mutate(_ input: [UInt8], corpus: [[UInt8]], kind: Kind, rng: inout SplitMix64) -> [UInt8] {
        var bytes = input
        switch kind {
        case .bitFlip:
            guard !bytes.isEmpty else { return [0x80] }
            for _ in 0..<Int.random(in: 1...8, using: &rng) {
                bytes[Int.random(in: 0..<bytes.count, using: &rng)] ^= UInt8(1) << UInt8.random(in: 0...7, using: &rng)
            }
        case .truncate:
            guard !bytes.isEmpty else { return bytes }
            bytes = Array(bytes.prefix(Int.random(in: 0..<bytes.count, using: &rng)))
        case .splice:
            let other = rng.pick(corpus)
            let cut = Int.random(in: 0...bytes.count, using: &rng)
            let from = Int.random(in: 0...other.count, using: &rng)
            bytes = Array(bytes[..<cut]) + Array(other[from...])
        case .insertBytes:
            let at = Int.random(in: 0...bytes.count, using: &rng)
            bytes.insert(contentsOf: rng.bytes(Int.random(in: 1...16, using: &rng)), at: at)
        case .deleteRange:
            guard !bytes.isEmpty else { return bytes }
            let start = Int.random(in: 0..<bytes.count, using: &rng)
            let end = min(bytes.count, start + Int.random(in: 1...16, using: &rng))
            bytes.removeSubrange(start..<end)
        case .interestingByte:
            guard !bytes.isEmpty else { return [0] }
            bytes[Int.random(in: 0..<bytes.count, using: &rng)] = rng.pick([0x00, 0x01, 0x7F, 0x80, 0xFF, 0x08, 0x0A, 0x12, 0x52])
        case .fieldSwap, .varintValue, .dropField, .duplicateField, .shuffleFields:
            guard var fields = ProtobufWire.parse(bytes), !fields.isEmpty else {
                return mutate(input, corpus: corpus, kind: .bitFlip, rng: &rng)
            }
            mutateTree(&fields, kind: kind, rng: &rng, depth: 0)
            bytes = ProtobufWire.serialize(fields)
        case .wrongVersion:
            guard var fields = ProtobufWire.parse(bytes) else { return bytes }
            fields.removeAll { $0.number == 1 }
            let version = rng.pick([0, 2, 3, 255, UInt64(UInt32.max), 1 << 32 | 1, UInt64.max] as [UInt64])
            if version != 0 { fields.insert(WireField(number: 1, value: .varint(version)), at: 0) }
            bytes = ProtobufWire.serialize(fields)
        case .hugeVarint:
            // A 10-byte varint (legal, UInt64.max) or an over-long one (11+ bytes: illegal).
            var tail = ProtobufWire.varint(UInt64(rng.pick([1, 3, 4, 12, 15, 100] as [Int])) << 3)
            tail += rng.chance(0.5) ? [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01]
                                    : [UInt8](repeating: 0xFF, count: Int.random(in: 10...40, using: &rng)) + [0x01]
            bytes.insert(contentsOf: tail, at: rng.chance(0.5) ? 0 : bytes.count)
        case .hugeLength:
            // A length-delimited field claiming far more bytes than there are.
            var field = ProtobufWire.varint(UInt64(rng.pick([2, 10, 11, 21, 99] as [Int])) << 3 | 2)
            field += ProtobufWire.varint(rng.pick([1 << 20, 1 << 31, 1 << 32, UInt64(Int64.max), UInt64.max] as [UInt64]))
            field += rng.bytes(Int.random(in: 0...8, using: &rng))
            bytes += field
        case .deepNesting:
            bytes = deepNesting(around: bytes, depth: rng.pick([64, 100, 101, 1_000, 10_000, 100_000] as [Int]), rng: &rng)
        case .garbage:
            bytes = rng.bytes(Int.random(in: 0...512, using: &rng))
        }
        return bytes
    }

    /// `depth` nested unknown groups (start-group … end-group), or nested length-delimited
    /// unknown fields, next to or inside the command of `input`.
    public static func deepNesting(around input: [UInt8], depth: Int, rng: inout SplitMix64) -> [UInt8] {
        let number = UInt64(rng.pick([15, 99, 1_000] as [Int]))
        var nest: [UInt8]
        if rng.chance(0.6) {
            nest = [UInt8]()
            let start = ProtobufWire.varint(number << 3 | 3), end = ProtobufWire.varint(number << 3 | 4)
            for _ in 0..<depth { nest += start }
            for _ in 0..<depth { nest += end }
            if rng.chance(0.2) { nest.removeLast() }  // unbalanced
        } else {
            nest = []
            for _ in 0..<min(depth, 2_000) {  // length prefixes grow: keep it under a MiB
                var wrapped = ProtobufWire.varint(number << 3 | 2)
                wrapped += ProtobufWire.varint(UInt64(nest.count))
                nest = wrapped + nest
            }
        }
        guard var fields = ProtobufWire.parse(input), rng.chance(0.5),
              let index = fields.firstIndex(where: { $0.number == 10 }), case .bytes(let body, _) = fields[index].value else {
            return input + nest
        }
        fields[index].value = .bytes(body + nest, nested: nil)
        return ProtobufWire.serialize(fields)
    }

    private static func mutateTree(_ fields: inout [WireField], kind: Kind, rng: inout SplitMix64, depth: Int) {
        guard !fields.isEmpty else { return }
        let index = Int.random(in: 0..<fields.count, using: &rng)
        // Go deeper half of the time when there is a nested message.
        if case .bytes(_, let nested?) = fields[index].value, !nested.isEmpty, depth < 10, rng.chance(0.6) {
            var inner = nested
            mutateTree(&inner, kind: kind, rng: &rng, depth: depth + 1)
            fields[index].value = .bytes(ProtobufWire.serialize(inner), nested: inner)
            return
        }
        switch kind {
        case .fieldSwap:
            if case .bytes = fields[index].value {
                fields[index].value = .bytes(rng.pick(stringPool), nested: nil)
            } else if let other = fields.indices.filter({ fields[$0].wireType == fields[index].wireType }).randomElement(using: &rng) {
                let value = fields[index].value
                fields[index].value = fields[other].value
                fields[other].value = value
            }
        case .varintValue:
            let targets = fields.indices.filter { if case .varint = fields[$0].value { true } else { false } }
            if let target = targets.randomElement(using: &rng) {
                fields[target].value = .varint(rng.pick(interestingVarints))
            } else {
                fields[index].value = .varint(rng.pick(interestingVarints))  // wrong wire type for the field
            }
        case .dropField:
            fields.remove(at: index)
        case .duplicateField:
            fields.insert(fields[index], at: Int.random(in: 0...fields.count, using: &rng))
        case .shuffleFields:
            fields.shuffle(using: &rng)
        default:
            break
        }
    }
}
