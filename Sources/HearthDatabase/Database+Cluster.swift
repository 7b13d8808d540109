import Foundation
public import HearthCore
import HearthStore
public import Logging

/// A cluster node's side of its namespaces (HearthServer's cluster membership calls these):
/// the local copy's place in the cluster's changelog, catching it up, taking a namespace over
/// and letting it go. See docs/cluster.md.
extension Database {
    /// Where the local copy of `name` stands in the changelog; nil when it holds nothing.
    public func replicationPosition(of name: String) throws -> ReplicationPosition? {
        try store.replicationPosition(of: name)
    }

    /// Applies changelog entries to the local copy of `name` (not open: the node does not
    /// serve it yet).
    public func applyReplicated(_ entries: [ReplicatedEntry], to name: String) throws {
        try store.applyReplicated(entries, to: name)
    }

    /// Reads the local copy of `name` (open or not) as one snapshot, in chunks
    /// (`Store.snapshotReplica`); answers the changelog position it holds. Blocks on the disk.
    public func snapshotReplica(
        of name: String,
        chunkBytes: Int = 1 << 20,
        _ visit: (_ position: ReplicationPosition, _ chunk: [UInt8]) throws -> Void
    ) throws -> ReplicationPosition? {
        try store.snapshotReplica(of: name, chunkBytes: chunkBytes, visit)
    }

    /// Applies one chunk of a snapshot to the cleared local copy of `name` (not open).
    public func applySnapshotChunk(_ chunk: [UInt8], to name: String) throws {
        try store.applySnapshotChunk(chunk, to: name)
    }

    /// Records that the local copy of `name` (not open) holds the changelog up to `position`.
    public func setReplicationPosition(_ position: ReplicationPosition, of name: String) throws {
        try store.setReplicationPosition(position, of: name)
    }

    /// Clears the local copy of `name` (it holds a commit the changelog does not).
    public func discardReplica(_ name: String) throws {
        try store.discardReplica(name)
    }

    /// Starts serving `name`, which this node now owns and has caught up: the cluster's rules
    /// for it put in force (or this node's file, which then seeds the cluster's; their indexes
    /// built through the changelog), `seedFile` imported when given and
    /// there (the cluster's `default` was never written; a missing file seeds nothing, as on a
    /// single node), and the onDisconnect writes the connections of
    /// its previous owner left are run, once.
    /// - Returns: how many onDisconnect writes ran.
    public func takeOver(_ name: String, seedFile: String?, logger: Logger) async throws -> Int {
        try await rules.adopt(name)
        let engine = try await engine(for: name)
        if let seedFile, name == "default", FileManager.default.fileExists(atPath: seedFile) {
            try await seed(from: seedFile, logger: logger)
        }
        return await engine.runStoredOnDisconnect()
    }

    /// Stops serving `name` here (the lease was lost or given up): its engine and store are
    /// forgotten, so the next request finds it owned elsewhere or takes it over again.
    public func release(_ name: String) {
        forgetEngine(name)
        store.forgetNamespace(name)
    }
}
