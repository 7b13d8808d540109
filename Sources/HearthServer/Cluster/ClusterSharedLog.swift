import HearthCluster
import HearthStore

/// A shared log of the cluster's PostgreSQL (`hearth_shared_log`, one stream, with its snapshots
/// in `hearth_shared_snapshots`): the accounts' (`accounts`) and the storage catalog's
/// (`storage`). Its calls block (a store's writer makes them, never an event loop) for at most
/// the PostgreSQL link's own timeouts.
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

    func snapshotHead() throws -> SharedLogSnapshotHead? {
        try directory.sharedSnapshotHead(stream).wait().map {
            SharedLogSnapshotHead(position: $0.position, chunks: $0.chunks)
        }
    }

    func snapshotChunk(at position: Int64, chunk: Int32) throws -> [UInt8]? {
        try directory.sharedSnapshotChunk(stream, position: position, chunk: chunk).wait()
    }

    func writeSnapshotChunk(_ data: [UInt8], at position: Int64, chunk: Int32) throws {
        try directory.writeSharedSnapshotChunk(stream, position: position, chunk: chunk, data: data).wait()
    }

    func publishSnapshot(at position: Int64, chunks: Int32) throws -> Bool {
        try directory.publishSharedSnapshot(stream, position: position, chunks: chunks).wait()
    }

    func compact(entriesBefore: Int64, snapshotsBefore: Int64) throws {
        try directory.compactShared(stream, entriesBefore: entriesBefore, snapshotsBefore: snapshotsBefore).wait()
    }
}
