import CZMQ

/// The version of the libzmq library this process runs against.
public enum LibZMQ {
    public static var version: (major: Int, minor: Int, patch: Int) {
        var major: Int32 = 0, minor: Int32 = 0, patch: Int32 = 0
        zmq_version(&major, &minor, &patch)
        return (Int(major), Int(minor), Int(patch))
    }

    /// Whether libzmq was built with the named capability ("curve", "ipc", …).
    public static func has(_ capability: String) -> Bool {
        zmq_has(capability) != 0
    }
}
