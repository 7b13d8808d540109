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
        forEachLocation(at: .root) { list in
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
                reader.keys.putIndexEntry(index.id, list: list, child: child, value: value, into: batch)
                if batch.count >= batchLimit {
                    do {
                        try flush(batch)
                    } catch {
                        failure = error
                        return false
                    }
                    batch = WriteBatch()
                }
                return true
            }
        }
        if let failure { throw failure }
        try flush(batch)
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
        let prefix = keys.dataKey(path)
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
