public import HearthCore

extension NamespaceReader {
    /// Children of `path` selected by `query`, in the query's order. Throws
    /// `StoreError.indexNotDefined` when the query orders by a child or value without an index.
    public func query(at path: DataPath, _ query: Query) throws -> [(key: ChildKey, node: Node)] {
        switch query.order {
        case .key, .priority:
            // Evaluated over the children in memory; `$key` and `$priority` need no index.
            guard case .children(let children, _)? = node(at: path) else { return [] }
            return QueryEvaluator.apply(query, to: children)
        case .value, .child:
            guard let index = indexes.first(where: { $0.covers(location: path, order: query.order) }) else {
                throw StoreError(
                    .indexNotDefined,
                    NamespaceReader.indexNotDefinedMessage(path: path, order: query.order)
                )
            }
            return indexedQuery(at: path, query, index: index)
        }
    }

    /// Firebase's words for an ordered read without an index.
    static func indexNotDefinedMessage(path: DataPath, order: QueryOrder) -> String {
        let indexOn: String
        switch order {
        case .child(let child): indexOn = child.keys.map(\.string).joined(separator: "/")
        case .value: indexOn = ".value"
        case .key: indexOn = ".key"
        case .priority: indexOn = ".priority"
        }
        return "Index not defined, add \".indexOn\": \"\(indexOn)\", for path \"\(path)\", to the rules"
    }

    private func indexedQuery(
        at path: DataPath,
        _ query: Query,
        index: RegisteredIndex
    ) -> [(key: ChildKey, node: Node)] {
        var prefix = keys.indexPrefix(index.id)
        KeyEncoding.append(path, to: &prefix)
        var lower = prefix
        var upper = KeyBytes.successor(of: prefix) ?? prefix
        if let start = query.start {
            var key = prefix
            IndexValueEncoding.append(start.value, to: &key)
            if let name = start.key { KeyEncoding.append(name, to: &key) }
            if query.startIsExclusive {
                lower = KeyBytes.successor(of: key) ?? key
            } else {
                lower = key
            }
        }
        if let end = query.end {
            var key = prefix
            IndexValueEncoding.append(end.value, to: &key)
            if let name = end.key { KeyEncoding.append(name, to: &key) }
            if query.endIsExclusive {
                upper = key
            } else {
                upper = KeyBytes.successor(of: key) ?? key
            }
        }
        let selected =
            keepsEntries(index, list: path)
            ? keptEntries(prefix: prefix, lower: lower, upper: upper, limit: query.limit)
            : orderedWhenRead(
                path,
                index: index,
                prefixLength: prefix.count,
                lower: lower,
                upper: upper,
                limit: query.limit
            )
        return selected.compactMap { key in
            node(at: path.child(key)).map { (key, $0) }
        }
    }

    /// The children a query selects from a list's stored entries (prefix `prefix`, the range
    /// `lower..<upper` of entry keys).
    private func keptEntries(prefix: [UInt8], lower: [UInt8], upper: [UInt8], limit: QueryLimit?) -> [ChildKey] {
        var selected: [ChildKey] = []
        let cursor = snapshot.makeIterator()
        func childKey() -> ChildKey? {
            cursor.keyBytes.withUnsafeBytes { Self.entryChild($0, prefixLength: prefix.count) }
        }
        switch limit {
        case .last(let limit)?:
            cursor.seek(upper)
            if cursor.isValid { cursor.previous() } else { cursor.seekToLast() }
            while selected.count < limit, cursor.hasPrefix(prefix),
                KeyBytes.compare(cursor.keyBytes, lower) >= 0
            {
                if let key = childKey() { selected.append(key) }
                cursor.previous()
            }
            selected.reverse()
        case .first(let limit)?:
            cursor.seek(lower)
            while selected.count < limit, cursor.isValid, KeyBytes.compare(cursor.keyBytes, upper) < 0 {
                if let key = childKey() { selected.append(key) }
                cursor.next()
            }
        case nil:
            cursor.seek(lower)
            while cursor.isValid, KeyBytes.compare(cursor.keyBytes, upper) < 0 {
                if let key = childKey() { selected.append(key) }
                cursor.next()
            }
        }
        return selected
    }

    /// The children a query selects from a list that keeps no entries: the entries its
    /// children call for, made and sorted in memory (the same keys and order stored entries
    /// would have, their list's part `prefixLength` bytes), then the range `lower..<upper` and
    /// the limit. A list found holding more
    /// than `ListIndexing.smallListLimit` children is handed to `ListIndexing.keep`.
    private func orderedWhenRead(
        _ list: DataPath,
        index: RegisteredIndex,
        prefixLength: Int,
        lower: [UInt8],
        upper: [UInt8],
        limit: QueryLimit?
    ) -> [ChildKey] {
        var entries: [[UInt8]] = []
        var children = 0
        forEachEntry(of: list, in: index) { key in
            children += 1
            if !KeyBytes.precedes(key, lower), KeyBytes.precedes(key, upper) { entries.append(key) }
            return true
        }
        if children > listIndexing.smallListLimit { listIndexing.keep?(index, list) }
        entries.sort(by: KeyBytes.precedes)
        let window: ArraySlice<[UInt8]>
        switch limit {
        case .last(let limit)?: window = entries.suffix(limit)
        case .first(let limit)?: window = entries.prefix(limit)
        case nil: window = entries[...]
        }
        return window.compactMap { key in key.withUnsafeBytes { Self.entryChild($0, prefixLength: prefixLength) } }
    }

    /// The child named by an index entry's key (after the index's and list's `prefixLength`
    /// bytes and the encoded value).
    private static func entryChild(_ key: UnsafeRawBufferPointer, prefixLength: Int) -> ChildKey? {
        guard let valueEnd = IndexValueEncoding.end(key, from: prefixLength),
            let keyEnd = KeyEncoding.segmentEnd(key, from: valueEnd)
        else { return nil }
        return KeyEncoding.decodeKey(key, start: valueEnd, end: keyEnd)
    }
}

extension IndexValueEncoding {
    /// The end offset of the encoded index value starting at `offset`.
    static func end(_ bytes: UnsafeRawBufferPointer, from offset: Int) -> Int? {
        guard offset < bytes.count else { return nil }
        switch bytes[offset] {
        case nullTag, falseTag, trueTag, objectTag:
            return offset + 1
        case numberTag:
            return offset + 9 <= bytes.count ? offset + 9 : nil
        case stringTag:
            var i = offset + 1
            while i + 1 < bytes.count {
                if bytes[i] == 0 {
                    if bytes[i + 1] == 1 { return i + 2 }
                    i += 2
                } else {
                    i += 1
                }
            }
            return nil
        default:
            return nil
        }
    }
}
