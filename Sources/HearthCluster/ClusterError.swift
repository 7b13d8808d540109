/// Why the cluster refused or could not do something; each says what to do.
public enum ClusterError: Error, Equatable, CustomStringConvertible {
    /// `--cluster`'s value is not a usable PostgreSQL URL.
    case invalidAddress(String)
    /// PostgreSQL could not be reached or answered with an error.
    case unavailable(String)
    /// This node no longer owns the namespace: another node took it over (a newer epoch), so a
    /// commit of this node's would not be the namespace's history.
    case fenced(namespace: String, epoch: Int64)
    /// The changelog is not what this node expected (a gap or a foreign row).
    case inconsistent(String)

    /// True for `.fenced`: the namespace's epoch moved on, so nothing was committed.
    public var isFenced: Bool {
        if case .fenced = self { return true }
        return false
    }

    public var description: String {
        switch self {
        case .invalidAddress(let message): message
        case .unavailable(let message):
            "The cluster's PostgreSQL is unavailable: \(message). Check that it runs and that --cluster names it."
        case .fenced(let namespace, let epoch):
            "This node no longer owns namespace '\(namespace)' (its epoch \(epoch) was taken over); retry: the request goes to the new owner."
        case .inconsistent(let message): "The cluster's changelog is inconsistent: \(message)."
        }
    }
}
