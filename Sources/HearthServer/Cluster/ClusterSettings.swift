public import HearthCluster

/// `hearth serve --cluster`: the node joins the cluster whose state lives in `address`
/// (docs/cluster.md).
public struct ClusterSettings: Sendable, Equatable {
    /// The cluster's PostgreSQL database.
    public var address: ClusterAddress
    /// The URL other nodes reach this node at (`--advertise`); nil: `http://HOST:PORT` of the
    /// node as it listens.
    public var advertise: String?
    /// How long a namespace's lease and a node's heartbeat last (`--lease-seconds`): a dead
    /// node's namespaces are served by another node within it.
    public var leaseSeconds: Int = 10
    /// How many changelog entries a namespace gathers past its newest snapshot before its owner
    /// takes another (`--snapshot-entries`); the changelog up to a snapshot then goes.
    public var snapshotEntries: Int = 50_000

    public init(
        address: ClusterAddress,
        advertise: String? = nil,
        leaseSeconds: Int = 10,
        snapshotEntries: Int = 50_000
    ) {
        self.address = address
        self.advertise = advertise
        self.leaseSeconds = leaseSeconds
        self.snapshotEntries = snapshotEntries
    }

    /// Why the settings cannot work for a node listening on `host`, if they cannot.
    public func problem(host: String) -> String? {
        guard (2...3_600).contains(leaseSeconds) else {
            return "--lease-seconds must be 2 to 3600 (it is \(leaseSeconds))."
        }
        guard snapshotEntries >= 10 else {
            return "--snapshot-entries must be at least 10 (it is \(snapshotEntries))."
        }
        if let advertise, !advertise.hasPrefix("http://") {
            return
                "--advertise must be an http:// URL other nodes reach this node at (nodes speak plain HTTP to each other)."
        }
        if advertise == nil, ["0.0.0.0", "::", "[::]", ""].contains(host) {
            return
                "A node listening on every address (--host \(host)) needs --advertise: the URL other nodes reach it at."
        }
        return nil
    }
}
