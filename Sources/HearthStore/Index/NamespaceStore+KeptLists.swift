import HearthCore

extension NamespaceStore {
    /// The reads' and writes' `ListIndexing`: the store's limit, and a query's request to keep a
    /// list's entries going to `keepEntries`.
    var listIndexing: ListIndexing {
        ListIndexing(smallListLimit: smallListLimit) { [weak self] index, list in
            self?.keepEntries(index, list)
        }
    }

    /// Has the writer build the entries and marker of `list` in `index`, once: a request while
    /// one for the same list waits is dropped. A failure (the namespace stopped being served
    /// here) leaves the list as it was, ordered when read.
    func keepEntries(_ index: RegisteredIndex, _ list: DataPath) {
        let marker = keys.keptListKey(index.id, list: list)
        guard keepRequests.withLock({ $0.insert(StoredKey(marker)).inserted }) else { return }
        writer.perform { [self] round in
            try buildEntries(of: list, in: index, round: round)
        } completion: { [self] result in
            keepRequests.withLock { _ = $0.remove(StoredKey(marker)) }
            if case .failure(let error) = result {
                NamespaceStore.logger.debug("index entries of a list not built: \(error)")
            }
        }
    }

    /// Writes the entries of `list` in `index` and then its marker, on the writer, unless the
    /// index is no longer in force or the list keeps entries already. Entries a build cut short
    /// by a crash left behind (no marker) are deleted first.
    func buildEntries(
        of list: DataPath,
        in index: RegisteredIndex,
        round: WriteRound,
        batchLimit: Int = 20_000
    )
        throws
    {
        guard registeredIndexes.contains(index) else { return }
        let marker = keys.keptListKey(index.id, list: list)
        // One snapshot: the list's entries, and what a cut-short build left (deleted first).
        let planned = try readNow { reader -> (entries: [[UInt8]], leftovers: WriteBatch)? in
            if reader.keepsEntries(index, list: list) { return nil }
            var entries: [[UInt8]] = []
            reader.forEachEntry(of: list, in: index) {
                entries.append($0)
                return true
            }
            var leftovers = keys.indexPrefix(index.id)
            KeyEncoding.append(list, to: &leftovers)
            let batch = WriteBatch()
            reader.scan(leftovers) { key, _ in batch.delete(Array(key)) }
            return (entries, batch)
        }
        if let planned {
            var batch = planned.leftovers
            // With the first entries: a store holding any entry says which layout they follow.
            batch.put(keys.indexLayoutKey, [])
            for key in planned.entries {
                batch.put(key, [])
                if batch.count >= batchLimit {
                    try round.commitUnsequenced(batch)
                    batch = WriteBatch()
                }
            }
            batch.put(marker, [])
            try round.commitUnsequenced(batch)
        }
        round.keptLists.learnKept(
            marker,
            indexID: index.id,
            segmentCount: marker.count - keys.keptListPrefix(index.id).count
        )
    }

    /// True when the namespace holds index entries of the layout before docs/decisions/0024:
    /// some index has entries and the layout marker is not stored (one seek per index).
    func needsMoveToKeptLists() throws -> Bool {
        try readNow { reader in
            guard reader.snapshot.get(keys.indexLayoutKey) == nil else { return false }
            return reader.indexes.contains { index in
                let prefix = keys.indexPrefix(index.id)
                let cursor = reader.snapshot.makeIterator()
                cursor.seek(prefix)
                return cursor.hasPrefix(prefix)
            }
        }
    }

    /// Moves a namespace written before docs/decisions/0024 (every indexed list kept entries)
    /// to the kept-list layout: a list holding more than the limit gets its marker, a smaller
    /// one loses its entries; then the layout marker. In batches of `batchLimit`; every step is
    /// idempotent, so a kill part way leaves the rest to the next opening.
    func moveToKeptLists(in round: WriteRound, batchLimit: Int = 20_000) throws {
        for index in registeredIndexes {
            try readNow { reader in
                let prefix = keys.indexPrefix(index.id)
                var batch = WriteBatch()
                batch.noteKeptListsChanged()
                var failure: Error?
                // The list being read, and its entries while there are at most the limit.
                var list: [UInt8]?
                var entries: [[UInt8]] = []
                var count = 0
                func finishList() {
                    guard let list, !reader.keepsEntries(index, segments: list) else { return }
                    if count > smallListLimit {
                        batch.put(keys.keptListKey(index.id, segments: list), [])
                    } else {
                        for key in entries { batch.delete(key) }
                    }
                    guard batch.count >= batchLimit, failure == nil else { return }
                    do { try round.commitUnsequenced(batch) } catch { failure = error }
                    batch = WriteBatch()
                    batch.noteKeptListsChanged()
                }
                reader.scan(prefix) { key, _ in
                    guard failure == nil,
                        let end = IndexMaintenance.segmentsEnd(
                            key,
                            from: prefix.count,
                            count: index.spec.location.count
                        )
                    else { return }
                    if list.map({ !$0.elementsEqual(key[prefix.count..<end]) }) ?? true {
                        finishList()
                        list = Array(key[prefix.count..<end])
                        entries = []
                        count = 0
                    }
                    count += 1
                    if count <= smallListLimit + 1 { entries.append(Array(key)) }
                }
                finishList()
                if let failure { throw failure }
                try round.commitUnsequenced(batch)
            }
        }
        let done = WriteBatch()
        done.put(keys.indexLayoutKey, [])
        try round.commitUnsequenced(done)
    }

}
