import CZMQ

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension ZMQSocket {
    /// Receives one complete message with all its frames.
    ///
    /// - Parameter dontWait: return at once when no message is waiting.
    /// - Returns: the message; `nil` when none is available and `dontWait` is set (EAGAIN),
    ///   or when the receive timeout (`SocketOption.receiveTimeout`) expired.
    /// - Throws: `ZMQError` for every other failure (closed socket, ETERM, EFSM, …).
    public func receive(dontWait: Bool = false) throws -> ZMQMessage? {
        let handle = try openHandle("receive")
        let msg = UnsafeMutablePointer<zmq_msg_t>.allocate(capacity: 1)
        defer { msg.deallocate() }

        var message = ZMQMessage(frames: [])
        var flags: Int32 = dontWait ? ZMQ_DONTWAIT : 0
        while true {
            guard zmq_msg_init(msg) == 0 else { throw ZMQError.last("receive (zmq_msg_init)") }
            defer { zmq_msg_close(msg) }

            let rc = retryingEINTR { zmq_msg_recv(msg, handle, flags) }
            if rc < 0 {
                let code = zmq_errno()
                if code == EAGAIN && message.frames.isEmpty { return nil }
                throw ZMQError(code: code, operation: "receive frame \(message.frames.count + 1)")
            }
            let size = zmq_msg_size(msg)
            if size > 0, let data = zmq_msg_data(msg) {
                message.frames.append(Array(UnsafeRawBufferPointer(start: data, count: size)))
            } else {
                message.frames.append([])
            }
            // Metadata rides on the frames the peer sent; a ROUTER's synthesized routing-id
            // frame carries none, so take the first frame that has it.
            if message.userID == nil { message.userID = Self.property("User-Id", of: msg) }
            if message.peerAddress == nil { message.peerAddress = Self.property("Peer-Address", of: msg) }
            if message.connectionDescriptor == nil {
                let descriptor = zmq_msg_get(msg, ZMQ_SRCFD)
                if descriptor >= 0 { message.connectionDescriptor = descriptor }
            }
            guard zmq_msg_more(msg) != 0 else { return message }
            // The rest of a multipart message has arrived with its first frame.
            flags = 0
        }
    }

    private static func property(_ name: String, of msg: UnsafeMutablePointer<zmq_msg_t>) -> String? {
        guard let value = zmq_msg_gets(msg, name) else { return nil }
        let string = String(cString: value)
        return string.isEmpty ? nil : string
    }
}
