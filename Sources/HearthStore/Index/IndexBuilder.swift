import HearthCore

/// Builds an index over the data already stored, in bounded batches.
struct IndexBuilder {
    let reader: NamespaceReader
    let index: RegisteredIndex
    let flush: (WriteBatch) throws -> Void
    var batchLimit = 20_000

    func build() throws {
        var batch = WriteBatch()
        var failure: Error?
        forEachEntry { key in
            batch.put(key, [])
            guard batch.count >= batchLimit else { return true }
            do {
                try flush(batch)
            } catch {
                failure = error
                return false
            }
            batch = WriteBatch()
            return true
        }
        if let failure { throw failure }
        try flush(batch)
    }

    /// Calls `body` with the key of every entry the stored data calls for, list by list (in
    /// key order within a list), until it returns false.
    func forEachEntry(_ body: ([UInt8]) -> Bool) {
        var going = true
        forEachLocation(at: .root) { list in
            guard going else { return }
            let prefix = reader.keys.dataKey(list)
            let cursor = reader.snapshot.makeIterator()
            var start = prefix
            start.append(KeyEncoding.priorityMarker + 1)
            cursor.seek(start)
            reader.forEachChild(cursor: cursor, prefix: prefix) { child, leaf in
                let value: IndexValueEncoding.Indexed
                if case .value = index.spec.indexed {
                    value = leaf.map { .leaf($0) } ?? .object
                } else {
                    value = reader.storedState(list.child(child).appending(index.childPath))
                }
                let encoded = IndexValueEncoding.encode(value)
                going = body(reader.keys.indexEntryKey(index.id, list: list, value: encoded, child: child))
                return going
            }
        }
    }

    /// Visits every stored location matching the index's pattern.
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
