public import CamsyncPKI
import Foundation

extension EtcdCertificates {
    /// The lab's certificates (`cluster up` with `etcd: { members: N }`, the tests, the benchmarks): a CA
    /// made on this machine for one run directory, whose key stays beside it (mode 0600, owner only) so
    /// that `cluster up` can issue what it needs again. It says what it is: in its name, and in
    /// `LAB-CA.txt` beside it. Production keeps its CA key offline (docs/OPERATIONS.md "Certificates
    /// and etcd auth").
    public static func openLab(directory: String, clusterName: String) throws -> EtcdCertificates {
        let certificates = try open(directory: directory, clusterName: clusterName,
                                    authorityName: "camsync \(clusterName) lab CA, not for production")
        let notice = "\(directory)/\(labNoticeFile)"
        if !FileManager.default.fileExists(atPath: notice) {
            try labNotice.write(toFile: notice, atomically: true, encoding: .utf8)
        }
        return certificates
    }

    public static let labNoticeFile = "LAB-CA.txt"

    public static let labNotice = """
        This is a lab CA. `camsync cluster up` made it for this run directory on this machine, and keeps its
        private key here (ca.key, mode 0600: readable by its owner only) so that it can issue etcd member and
        client certificates again. Whoever reads ca.key can make a certificate this etcd accepts.

        Do not use it in production. There, make the CA with `camsync keygen --etcd-certs DIR --cluster NAME …`
        on a machine you keep offline, copy out only ca.crt and each host's own certificate and key, and keep
        ca.key where only that machine reads it (docs/OPERATIONS.md, "Certificates and etcd auth").

        """
}
