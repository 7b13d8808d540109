import HearthCluster
import HearthStore

/// A shared log of the cluster's PostgreSQL (`hearth_shared_log`, one stream): the accounts'
/// (`accounts`) and the storage catalog's (`storage`). Its calls block (a store's writer makes
/// them, never an event loop) for at most the PostgreSQL link's own timeouts.
struct ClusterSharedLog: SharedLog {
    let directory: ClusterDirectory
    let stream: String
    let nodeID: String

    func entries(after position: Int64, limit: Int) throws -> [SharedLogEntry] {
        try directory.sharedLog(stream, after: position, limit: limit).wait().map {
            SharedLogEntry(position: $0.position, batch: $0.batch)
        }
    }

    func append(_ batch: [UInt8], at position: Int64) throws -> Bool {
        try directory.appendShared(stream, batch: batch, at: position, node: nodeID).wait()
    }
}
