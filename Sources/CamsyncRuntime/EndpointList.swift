/// A setting that names one endpoint or several, comma-separated (`tcp://10.0.0.1:5555,ipc:///run/c.sock`):
/// the entries, trimmed, empty ones left out. One rule for every process that takes such a list.
public enum EndpointList {
    public static func entries(in list: String) -> [String] {
        list.split(separator: ",").map { entry in
            var entry = entry
            while entry.first?.isWhitespace == true { entry.removeFirst() }
            while entry.last?.isWhitespace == true { entry.removeLast() }
            return String(entry)
        }.filter { !$0.isEmpty }
    }
}
