/// A namespace this node owns: the epoch it took it at, which fences every commit it makes
/// (`ClusterDirectory.append`), and the changelog position it found then.
public struct NamespaceLease: Sendable, Hashable {
    public let namespace: String
    public let node: String
    public let epoch: Int64
    /// The namespace's last changelog position when the lease was taken: the node serves the
    /// namespace only once its local state has caught up to it.
    public let lsn: Int64

    public init(namespace: String, node: String, epoch: Int64, lsn: Int64) {
        self.namespace = namespace
        self.node = node
        self.epoch = epoch
        self.lsn = lsn
    }
}

/// One entry of a namespace's changelog.
public struct ChangelogEntry: Sendable, Equatable {
    public let lsn: Int64
    public let epoch: Int64
    public let batch: [UInt8]

    public init(lsn: Int64, epoch: Int64, batch: [UInt8]) {
        self.lsn = lsn
        self.epoch = epoch
        self.batch = batch
    }
}

/// A node as the cluster knows it.
public struct ClusterNode: Sendable, Equatable {
    public let id: String
    public let url: String
    /// Its heartbeat is younger than the lease time.
    public let alive: Bool

    public init(id: String, url: String, alive: Bool) {
        self.id = id
        self.url = url
        self.alive = alive
    }
}

/// Who serves a namespace now.
public enum NamespaceOwnership: Sendable, Equatable {
    /// This node took it: serve it (after catching up to `lease.lsn`).
    case mine(NamespaceLease)
    /// Another node holds a lease that has not run out: forward to it.
    case other(ClusterNode)
}
