import CZMQ

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension ZMQSocket {
    /// Sends a multipart message (all frames or none: ZeroMQ delivers multipart messages
    /// atomically).
    ///
    /// - Parameter dontWait: do not block when the message cannot be queued now (high-water
    ///   mark reached, no peer yet, or ROUTER_MANDATORY with an unknown peer that is not
    ///   routable right now).
    /// - Returns: `true` when the message was queued; `false` only when `dontWait` is set and
    ///   the socket would block (EAGAIN), or when SNDTIMEO expired. Not an error.
    /// - Throws: `ZMQError` for every other failure (e.g. EHOSTUNREACH for ROUTER_MANDATORY
    ///   to an unknown routing id, EFSM on REQ/REP misuse, an empty frame list is EINVAL).
    @discardableResult
    public func send(_ frames: [[UInt8]], dontWait: Bool = false) throws -> Bool {
        try sendFrames(frames, dontWait: dontWait)
    }

    /// Sends a multipart message whose frames are any byte sequences (`ArraySlice<UInt8>`,
    /// `String.UTF8View`, …). See `send(_:dontWait:)` for the result.
    @discardableResult
    public func send<Bytes: Sequence>(_ frames: [Bytes], dontWait: Bool = false) throws -> Bool
    where Bytes.Element == UInt8 {
        try sendFrames(frames, dontWait: dontWait)
    }

    /// Sends one frame. With `more: true` the frame is the first or a middle part of a
    /// multipart message: the final frame is the next one sent with `more: false`.
    /// - Returns: `false` when `dontWait` is set and the socket would block (EAGAIN).
    @discardableResult
    public func send<Bytes: Sequence>(_ frame: Bytes, more: Bool = false, dontWait: Bool = false) throws -> Bool
    where Bytes.Element == UInt8 {
        let flags = (more ? ZMQ_SNDMORE : 0) | (dontWait ? ZMQ_DONTWAIT : 0)
        return try sendFrame(frame, flags: flags, operation: "send")
    }

    private func sendFrames<Bytes: Sequence>(_ frames: [Bytes], dontWait: Bool) throws -> Bool
    where Bytes.Element == UInt8 {
        guard !frames.isEmpty else {
            throw ZMQError.invalidArgument("send (a message needs at least one frame)")
        }
        let last = frames.count - 1
        for (index, frame) in frames.enumerated() {
            let flags = (index < last ? ZMQ_SNDMORE : 0) | (dontWait ? ZMQ_DONTWAIT : 0)
            let queued = try sendFrame(frame, flags: flags, operation: "send frame \(index + 1)/\(frames.count)")
            if !queued {
                // libzmq decides "would block" on the first frame only; once a message is
                // started its further frames are always accepted. Anything else would leave
                // a half-sent message behind, so it is reported as an error.
                guard index == 0 else {
                    throw ZMQError(code: EAGAIN, operation: "send frame \(index + 1)/\(frames.count) (message left incomplete)")
                }
                return false
            }
        }
        return true
    }

    /// Sends one frame with raw libzmq flags. Returns false on EAGAIN.
    private func sendFrame<Bytes: Sequence>(_ frame: Bytes, flags: Int32, operation: @autoclosure () -> String) throws -> Bool
    where Bytes.Element == UInt8 {
        let handle = try openHandle(operation())
        let rc: Int32
        if let result = frame.withContiguousStorageIfAvailable({ buffer in
            retryingEINTR { zmq_send(handle, buffer.baseAddress, buffer.count, flags) }
        }) {
            rc = result
        } else {
            rc = Array(frame).withUnsafeBufferPointer { buffer in
                retryingEINTR { zmq_send(handle, buffer.baseAddress, buffer.count, flags) }
            }
        }
        if rc >= 0 { return true }
        let code = zmq_errno()
        if code == EAGAIN { return false }
        throw ZMQError(code: code, operation: operation())
    }
}
