public import HearthCore

extension NamespaceStore {
    /// How the stored entries of one index differ from what the tree calls for.
    public struct IndexDisagreement: Sendable, Equatable {
        /// The index.
        public let spec: IndexSpec
        /// Entries the tree calls for that are not stored.
        public var missing: Int
        /// Entries stored that the tree does not call for.
        public var extra: Int
    }

    /// Compares every index in force with the tree, in one snapshot: empty when each holds
    /// exactly one entry per child of each indexed list that keeps entries (its marker is
    /// stored), with the child's indexed value, and no other entry.
    public func indexDisagreements() async throws -> [IndexDisagreement] {
        try await read { reader in
            reader.indexes.compactMap { index in
                var expected = Set<StoredKey>()
                IndexBuilder(reader: reader, index: index, flush: { _ in }).forEachKeptEntry {
                    expected.insert(StoredKey($0))
                }
                var extra = 0
                var found = 0
                reader.scan(reader.keys.indexPrefix(index.id)) { key, _ in
                    if expected.contains(StoredKey(Array(key))) { found += 1 } else { extra += 1 }
                }
                let missing = expected.count - found
                return missing == 0 && extra == 0
                    ? nil : IndexDisagreement(spec: index.spec, missing: missing, extra: extra)
            }
        }
    }

    /// True when the namespace still holds reverse index entries of the layout before
    /// docs/decisions/0020 (one seek).
    func hasRetiredReverseEntries() throws -> Bool {
        try readNow { reader in
            let cursor = reader.snapshot.makeIterator()
            cursor.seek(keys.retiredReversePrefix)
            return cursor.hasPrefix(keys.retiredReversePrefix)
        }
    }

    /// Deletes every reverse index entry of the earlier layout, in batches of `batchLimit`
    /// (deleting is idempotent: a crash part way leaves the rest to the next opening). The
    /// index entries stay: that layout kept them equal to the data as this one does.
    func removeRetiredReverseEntries(in round: WriteRound, batchLimit: Int = 20_000) throws {
        let prefix = keys.retiredReversePrefix
        var total = 0
        while true {
            let batch = try readNow { reader in
                let batch = WriteBatch()
                let cursor = reader.snapshot.makeIterator()
                cursor.seek(prefix)
                while cursor.hasPrefix(prefix) && batch.count < batchLimit {
                    batch.delete(Array(cursor.keyBytes))
                    cursor.next()
                }
                return batch
            }
            if batch.count == 0 { return }
            total += batch.count
            let done = batch.count < batchLimit
            if done { batch.noteCleared(prefix: prefix, deletedKeys: total) }
            try round.commitUnsequenced(batch)
            if done { return }
        }
    }
}
