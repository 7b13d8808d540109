public import HearthCore

/// A clustered namespace's whole state at one changelog position (the cluster's snapshots,
/// docs/cluster.md): read from one LevelDB snapshot of a node's copy, installed into another
/// node's copy in its place. A snapshot holds every key of the namespace's tables except its
/// position, as `ReplicatedBatch`es of puts (node-independent: no namespace id).
extension Store {
    /// Reads the local copy of `name` as it stands in one LevelDB snapshot and hands its keys to
    /// `visit` in chunks of about `chunkBytes`, in key order, with the changelog position they
    /// hold; answers that position (nil, and no chunk, when the copy holds no position).
    public func snapshotReplica(
        of name: String,
        chunkBytes: Int = 1 << 20,
        _ visit: (_ position: ReplicationPosition, _ chunk: [UInt8]) throws -> Void
    ) throws -> ReplicationPosition? {
        try db.withSnapshot { snapshot in
            guard let id = snapshot.get(KeySpace.namespaceKey(name)).map(KeySpace.decodeBigEndian) else { return nil }
            let keys = KeySpace(namespaceID: id)
            guard let position = snapshot.get(keys.replicationPositionKey).flatMap(KeySpace.decodePosition) else {
                return nil
            }
            var batch = WriteBatch()
            func flush() throws {
                if let chunk = ReplicatedBatch.encode(batch, keys: keys) { try visit(position, chunk) }
                batch = WriteBatch()
            }
            for table in KeySpace.namespaceTables where table != KeySpace.replicationTable {
                let prefix = KeySpace.prefix(table, id)
                let cursor = snapshot.makeIterator()
                cursor.seek(prefix)
                while cursor.hasPrefix(prefix) {
                    batch.put(cursor.keyBytes, cursor.valueBytes)
                    if batch.byteSize >= chunkBytes { try flush() }
                    cursor.next()
                }
            }
            try flush()
            return position
        }
    }

    /// Applies one chunk of a snapshot (`snapshotReplica`) to the local copy of `name`, which
    /// `discardReplica` cleared first; the first chunk registers the namespace here when it is
    /// new. The copy holds no position until `setReplicationPosition`: a copy left half
    /// installed is cleared again before the next catch-up.
    public func applySnapshotChunk(_ chunk: [UInt8], to name: String) throws {
        try Store.validateNamespaceName(name)
        try refuseOpen(name)
        let (keys, registration) = try localKeys(of: name)
        let batch = try ReplicatedBatch.decode(chunk, into: keys)
        if let registration { batch.append(registration.batch()) }
        try db.write(batch, sync: false)
    }

    /// Records that the local copy of `name` holds the changelog up to `position` (a snapshot
    /// installed whole).
    public func setReplicationPosition(_ position: ReplicationPosition, of name: String) throws {
        try refuseOpen(name)
        let (keys, registration) = try localKeys(of: name)
        let batch = WriteBatch()
        if let registration { batch.append(registration.batch()) }
        batch.put(keys.replicationPositionKey, KeySpace.encode(position))
        try db.write(batch, sync: true)
    }
}
