/// A schema-less view of protobuf's wire format (the fuzzer's structure-aware mutations; reading
/// what can be read of a frame that does not decode, e.g. its request id): fields are
/// parsed as (number, wire type, value); length-delimited values that parse completely as
/// fields are kept as a nested tree too (strings may parse by accident: harmless, since an
/// unmodified tree serializes back to the same bytes).
public struct WireField: Sendable, Hashable {
    public enum Value: Sendable, Hashable {
        case varint(UInt64)
        case fixed64(UInt64)
        case fixed32(UInt32)
        case bytes([UInt8], nested: [WireField]?)
    }

    public var number: UInt64
    public var value: Value

    public init(number: UInt64, value: Value) {
        self.number = number
        self.value = value
    }

    public var wireType: UInt64 {
        switch value {
        case .varint: 0
        case .fixed64: 1
        case .bytes: 2
        case .fixed32: 5
        }
    }
}

public enum ProtobufWire {
    /// The fields of `bytes`, or nil when they are not a complete sequence of well-formed fields
    /// (groups are not parsed). Nested messages are looked into up to `depth` levels.
    public static func parse(_ bytes: [UInt8], depth: Int = 12) -> [WireField]? {
        let (fields, complete) = parsePrefix(bytes, depth: depth)
        return complete ? fields : nil
    }

    /// The well-formed fields at the start of `bytes`, up to the first one that is not, and whether
    /// that was all of them.
    public static func parsePrefix(_ bytes: [UInt8], depth: Int = 12) -> (fields: [WireField], complete: Bool) {
        var fields: [WireField] = []
        var index = 0
        while index < bytes.count {
            guard let field = readField(bytes, &index, depth: depth) else { return (fields, false) }
            fields.append(field)
        }
        return (fields, true)
    }

    /// The value of the first length-delimited field `number` at the top level of `bytes`, found by
    /// skipping the fields before it (nothing decoded, nothing copied); nil when there is none or
    /// `bytes` is malformed before it.
    public static func lengthDelimited(_ number: UInt64, in bytes: [UInt8]) -> ArraySlice<UInt8>? {
        var index = 0
        while index < bytes.count {
            guard let tag = readVarint(bytes, &index) else { return nil }
            let valueStart = index
            guard skipValue(tag: tag, in: bytes, &index) else { return nil }
            if tag & 7 == 2, tag >> 3 == number {
                var start = valueStart
                _ = readVarint(bytes, &start)
                return bytes[start..<index]
            }
        }
        return nil
    }

    /// Moves `index` past the value of a field with `tag`; false when it is malformed (an unknown
    /// wire type, a varint or length that runs past the end).
    private static func skipValue(tag: UInt64, in bytes: [UInt8], _ index: inout Int) -> Bool {
        switch tag & 7 {
        case 0:
            return readVarint(bytes, &index) != nil
        case 1:
            index += 8
        case 2:
            guard let length = readVarint(bytes, &index), length <= UInt64(bytes.count - index) else { return false }
            index += Int(length)
        case 5:
            index += 4
        default:
            return false
        }
        return index <= bytes.count
    }

    /// Where the trailing run of top-level fields `number` starts in `bytes`: an encoder that writes
    /// fields in number order (swift-protobuf does) puts the fields of the highest number last, and
    /// the bytes before this offset are the message without them. `bytes.count` when there is no such
    /// field; nil when `bytes` is malformed or another field follows one of them (then decode it all).
    public static func trailingFieldsStart(_ number: UInt64, in bytes: [UInt8]) -> Int? {
        var index = 0
        var start: Int?
        while index < bytes.count {
            let fieldStart = index
            guard let tag = readVarint(bytes, &index) else { return nil }
            if tag >> 3 == number {
                if start == nil { start = fieldStart }
            } else if start != nil {
                return nil
            }
            guard skipValue(tag: tag, in: bytes, &index) else { return nil }
        }
        return start ?? bytes.count
    }

    private static func readField(_ bytes: [UInt8], _ index: inout Int, depth: Int) -> WireField? {
        guard let tag = readVarint(bytes, &index) else { return nil }
        let number = tag >> 3
        guard number > 0 else { return nil }
        switch tag & 7 {
        case 0:
            guard let value = readVarint(bytes, &index) else { return nil }
            return WireField(number: number, value: .varint(value))
        case 1:
            guard index + 8 <= bytes.count else { return nil }
            var value: UInt64 = 0
            for i in 0..<8 { value |= UInt64(bytes[index + i]) << (8 * UInt64(i)) }
            index += 8
            return WireField(number: number, value: .fixed64(value))
        case 2:
            guard let length = readVarint(bytes, &index), length <= UInt64(bytes.count - index) else { return nil }
            let body = Array(bytes[index..<(index + Int(length))])
            index += Int(length)
            let nested = depth > 0 && !body.isEmpty ? parse(body, depth: depth - 1) : nil
            return WireField(number: number, value: .bytes(body, nested: nested))
        case 5:
            guard index + 4 <= bytes.count else { return nil }
            var value: UInt32 = 0
            for i in 0..<4 { value |= UInt32(bytes[index + i]) << (8 * UInt32(i)) }
            index += 4
            return WireField(number: number, value: .fixed32(value))
        default:
            return nil
        }
    }

    public static func serialize(_ fields: [WireField]) -> [UInt8] {
        var out: [UInt8] = []
        for field in fields { append(field, to: &out) }
        return out
    }

    public static func append(_ field: WireField, to out: inout [UInt8]) {
        writeVarint(field.number << 3 | field.wireType, to: &out)
        switch field.value {
        case .varint(let v): writeVarint(v, to: &out)
        case .fixed64(let v): for i in 0..<8 { out.append(UInt8(truncatingIfNeeded: v >> (8 * UInt64(i)))) }
        case .fixed32(let v): for i in 0..<4 { out.append(UInt8(truncatingIfNeeded: v >> (8 * UInt32(i)))) }
        case .bytes(let body, let nested):
            let payload = nested.map(serialize) ?? body
            writeVarint(UInt64(payload.count), to: &out)
            out += payload
        }
    }

    public static func readVarint(_ bytes: [UInt8], _ index: inout Int) -> UInt64? {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while index < bytes.count, shift < 64 {
            let byte = bytes[index]
            index += 1
            value |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 { return value }
            shift += 7
        }
        return nil
    }

    public static func writeVarint(_ value: UInt64, to out: inout [UInt8]) {
        var v = value
        while v >= 0x80 {
            out.append(UInt8(v & 0x7F) | 0x80)
            v >>= 7
        }
        out.append(UInt8(v))
    }

    public static func varint(_ value: UInt64) -> [UInt8] {
        var out: [UInt8] = []
        writeVarint(value, to: &out)
        return out
    }
}
