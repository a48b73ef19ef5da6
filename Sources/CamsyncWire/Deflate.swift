import CZlib

/// zlib's format (RFC 1950: a two-byte header, deflate, an Adler-32 check), through the system zlib.
/// The HA command log stores each turn this way (`LogTurn`): its batches repeat node, app and camera
/// names, so a turn shrinks to about a sixth, and etcd, the leader and every standby handle a sixth of
/// the bytes (docs/PERFORMANCE.md).
public enum Deflate {
    /// `bytes` compressed at `level` (1: fastest … 9: smallest).
    public static func compress(_ bytes: [UInt8], level: Int32 = 1) -> [UInt8] {
        let bound = Int(compressBound(uLong(bytes.count)))
        return [UInt8](unsafeUninitializedCapacity: bound) { output, count in
            var length = uLongf(bound)
            let status = bytes.withUnsafeBufferPointer { input in
                compress2(output.baseAddress, &length, input.baseAddress, uLong(input.count), level)
            }
            // compress2 fails only without memory or with a bad level: neither can be answered here.
            precondition(status == Z_OK, "zlib compress2 failed: \(status)")
            count = Int(length)
        }
    }

    /// The bytes `compressed` holds, at most `limit` of them; throws on a damaged stream, a stream
    /// that ends early or goes on past its end, or more than `limit` bytes.
    public static func decompress(_ compressed: ArraySlice<UInt8>, limit: Int) throws(DeflateError) -> [UInt8] {
        var stream = z_stream()
        guard inflateInit_(&stream, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw DeflateError("zlib inflateInit failed")
        }
        defer { inflateEnd(&stream) }
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: min(limit, max(4 * compressed.count, 4096)) + 1)
        let status: Int32 = compressed.withUnsafeBufferPointer { input in
            stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
            stream.avail_in = uInt(input.count)
            while true {
                let (status, filled) = chunk.withUnsafeMutableBufferPointer { buffer in
                    stream.next_out = buffer.baseAddress
                    stream.avail_out = uInt(buffer.count)
                    let status = inflate(&stream, Z_NO_FLUSH)
                    output.append(contentsOf: buffer[..<(buffer.count - Int(stream.avail_out))])
                    return (status, stream.avail_out == 0)
                }
                guard output.count <= limit else { return Z_MEM_ERROR }
                // Z_OK with room left in the output: all the input is read and the stream goes on.
                guard status == Z_OK, filled else { return status == Z_OK ? Z_BUF_ERROR : status }
            }
        }
        switch status {
        case Z_STREAM_END where stream.avail_in == 0: return output
        case Z_STREAM_END: throw DeflateError("\(stream.avail_in) bytes after the end of the stream")
        case Z_MEM_ERROR where output.count > limit: throw DeflateError("more than \(limit) bytes when inflated")
        case Z_BUF_ERROR: throw DeflateError("the stream ends early")
        default:
            let message = stream.msg.map { ": " + String(cString: $0) } ?? ""
            throw DeflateError("not a well-formed zlib stream (zlib status \(status)\(message))")
        }
    }
}

/// A zlib stream that cannot be read.
public struct DeflateError: Error, CustomStringConvertible, Equatable {
    public var description: String
    init(_ description: String) { self.description = description }
}
