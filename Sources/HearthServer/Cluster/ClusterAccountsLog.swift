import HearthAccounts
import HearthCluster

/// The cluster's accounts log: the shared log `accounts` in the cluster's PostgreSQL. Its calls
/// block (the accounts' writer queue makes them, never an event loop) for at most the
/// PostgreSQL link's own timeouts.
struct ClusterAccountsLog: AccountsLog {
    static let stream = "accounts"

    let directory: ClusterDirectory
    let nodeID: String

    func entries(after position: Int64, limit: Int) throws -> [AccountsLogEntry] {
        try directory.sharedLog(Self.stream, after: position, limit: limit).wait().map {
            AccountsLogEntry(position: $0.position, batch: $0.batch)
        }
    }

    func append(_ batch: [UInt8], at position: Int64) throws -> Bool {
        try directory.appendShared(Self.stream, batch: batch, at: position, node: nodeID).wait()
    }
}
