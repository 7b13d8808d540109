import HearthCore

/// Builds an index over the data already stored, in bounded batches: the entries and marker of
/// every list holding more than `smallListLimit` children (smaller lists keep none,
/// docs/decisions/0024).
struct IndexBuilder {
    let reader: NamespaceReader
    let index: RegisteredIndex
    let flush: (WriteBatch) throws -> Void
    var batchLimit = 20_000

    func build() throws {
        var batch = Self.markerBatch()
        var failure: Error?
        let limit = reader.listIndexing.smallListLimit
        forEachList { list in
            var entries: [[UInt8]] = []
            reader.forEachEntry(of: list, in: index) {
                entries.append($0)
                return true
            }
            guard entries.count > limit else { return true }
            batch.put(reader.keys.indexLayoutKey, [])
            entries.append(reader.keys.keptListKey(index.id, list: list))
            for key in entries {
                batch.put(key, [])
                guard batch.count >= batchLimit else { continue }
                do {
                    try flush(batch)
                } catch {
                    failure = error
                    return false
                }
                batch = Self.markerBatch()
            }
            return true
        }
        if let failure { throw failure }
        try flush(batch)
    }

    /// An empty batch noted as one that writes list markers.
    private static func markerBatch() -> WriteBatch {
        let batch = WriteBatch()
        batch.noteKeptListsChanged()
        return batch
    }

    /// Calls `body` with the key of every entry the stored data calls for in the lists that
    /// keep entries (their marker is stored), list by list (in key order within a list).
    func forEachKeptEntry(_ body: ([UInt8]) -> Void) {
        forEachList { list in
            guard reader.keepsEntries(index, list: list) else { return true }
            reader.forEachEntry(of: list, in: index) {
                body($0)
                return true
            }
            return true
        }
    }

    /// Visits every stored location matching the index's pattern, until `body` returns false.
    func forEachList(_ body: (DataPath) -> Bool) {
        var going = true
        forEachLocation(at: .root) { list in
            guard going else { return }
            going = body(list)
        }
    }

    private func forEachLocation(at path: DataPath, _ body: (DataPath) -> Void) {
        if path.depth == index.spec.location.count {
            body(path)
            return
        }
        switch index.spec.location[path.depth] {
        case .key(let key):
            if reader.exists(path.child(key)) { forEachLocation(at: path.child(key), body) }
        case .wildcard:
            let prefix = reader.keys.dataKey(path)
            var start = prefix
            start.append(KeyEncoding.priorityMarker + 1)
            let cursor = reader.snapshot.makeIterator()
            cursor.seek(start)
            var children: [ChildKey] = []
            reader.forEachChild(cursor: cursor, prefix: prefix) { key, leaf in
                if leaf == nil { children.append(key) }
                return true
            }
            for child in children { forEachLocation(at: path.child(child), body) }
        }
    }
}

extension NamespaceReader {
    /// True when `list` keeps entries in `index` (its marker is stored).
    func keepsEntries(_ index: RegisteredIndex, list: DataPath) -> Bool {
        snapshot.get(keys.keptListKey(index.id, list: list)) != nil
    }

    /// True when the list whose key segments are `segments` keeps entries in `index`.
    func keepsEntries(_ index: RegisteredIndex, segments: [UInt8]) -> Bool {
        snapshot.get(keys.keptListKey(index.id, segments: segments)) != nil
    }

    /// Calls `body` with the key of the entry each child of `list` calls for in `index`, in the
    /// children's key order, until it returns false.
    func forEachEntry(of list: DataPath, in index: RegisteredIndex, _ body: ([UInt8]) -> Bool) {
        let prefix = keys.dataKey(list)
        let cursor = snapshot.makeIterator()
        var start = prefix
        start.append(KeyEncoding.priorityMarker + 1)
        cursor.seek(start)
        forEachChild(cursor: cursor, prefix: prefix) { child, leaf in
            let value: IndexValueEncoding.Indexed
            if case .value = index.spec.indexed {
                value = leaf.map { .leaf($0) } ?? .object
            } else {
                value = storedState(list.child(child).appending(index.childPath))
            }
            let encoded = IndexValueEncoding.encode(value)
            return body(keys.indexEntryKey(index.id, list: list, value: encoded, child: child))
        }
    }

    /// What is stored at `path`, without reading below its first key.
    func storedState(_ path: DataPath) -> IndexValueEncoding.Indexed {
        storedState(dataKey: keys.dataKey(path))
    }

    /// What is stored at the location whose data key is `prefix`, without reading below its
    /// first key.
    func storedState(dataKey prefix: [UInt8]) -> IndexValueEncoding.Indexed {
        let cursor = snapshot.makeIterator()
        cursor.seek(prefix)
        while cursor.hasPrefix(prefix) {
            let key = cursor.keyBytes
            if key.count == prefix.count {
                return ValueEncoding.decode(cursor.valueBytes).map { .leaf($0) } ?? .missing
            }
            if key.count == prefix.count + 1 && key[prefix.count] == KeyEncoding.priorityMarker {
                cursor.next()
                continue
            }
            return .object
        }
        return .missing
    }
}
