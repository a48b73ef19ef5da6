#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One peer connection of a socket, as libzmq reports it on received messages (`ZMQ_SRCFD`).
public enum ZMQConnection {
    /// Ends the connection a message came in on: shuts the TCP/IPC stream down (it does not close the
    /// descriptor, which libzmq owns), so libzmq sees the peer gone and drops its pipe and route.
    /// Call it right after receiving the message: once libzmq has closed a descriptor its number can
    /// be reused by a new connection.
    public static func drop(descriptor: Int32) {
        _ = shutdown(descriptor, Int32(SHUT_RDWR))
    }
}
