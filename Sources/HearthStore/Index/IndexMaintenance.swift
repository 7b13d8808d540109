import Glibc
import HearthCore

/// Keeps index entries in step with a planned write, in the same batch.
struct IndexMaintenance {
    let reader: NamespaceReader
    let batch: WriteBatch
    let view: PostWriteView
    /// Where the staged writes' indexed values are looked up first, and this write's noted
    /// (staging); nil: the write's pre-image and the snapshot only.
    var notes: IndexPlanNotes? = nil
    /// What the writer remembers of which lists keep entries; nil: their markers are read.
    var keptLists: KeptLists? = nil
    /// What the writer remembers of its lists' ends: a child past one is new, so it had no
    /// entry to delete (nil: the snapshot is read).
    var shapes: SubtreeShapes? = nil
    var keys: KeySpace { reader.keys }

    /// - Parameter order: the entries' indexes in the byte order of their data keys (the
    ///   entries below one child of an indexed list are then next to each other: its entry is
    ///   refreshed once, with no set of children to build).
    /// - Parameter indexes: the indexes to keep in step (`indexesToUpdate`, or every one).
    func update(for entries: [PlannedEntry], inKeyOrder order: [Int], indexes: [RegisteredIndex]) {
        for index in indexes {
            let depth = index.spec.location.count
            let table = keys.indexPrefix(index.id)
            // The last child refreshed: an entry's position, and the length of its key's first
            // `depth + 1` segments (the child's data key).
            var last: (position: Int, length: Int)?
            for (rank, position) in order.enumerated() {
                // Most of a write's entries lie outside most indexes: told by their key's bytes,
                // without copying the entry.
                let dataKey = entries[position].dataKey
                guard Self.mayReach(dataKey, fixed: index.fixedLocation), !entries[position].isPriority else {
                    continue
                }
                let path = entries[position].path
                if path.depth <= depth {
                    guard matchesPrefix(index.spec, path) else { continue }
                    reindex(index, at: path, node: entries[position].node)
                    continue
                }
                guard let located = LocatedChild(in: dataKey, depth: depth) else { continue }
                let length = located.childEnd
                if let last, last.length == length,
                    KeyBytes.hasPrefix(dataKey, entries[last.position].dataKey, length: length)
                {
                    continue
                }
                last = (position, length)
                // Deeper than the index's location: its list is the path's first `depth` keys.
                guard index.isList(dataKey, end: located.listEnd) else { continue }
                assert(located.matches(DataPath(keys: Array(path.keys[0...depth]))))
                // A list without a marker keeps no entries: nothing to refresh.
                guard keepsEntries(index.id, located) else { continue }
                let written = Self.writtenValue(
                    of: index,
                    in: entries,
                    order: order,
                    from: rank,
                    childKeyLength: length
                )
                refresh(index, childOf: path, at: located, in: table, written: written)
            }
        }
    }

    /// The indexes whose entries or markers `update` may change for a write whose entries have
    /// data keys `dataKeys` (none a priority, none a delete) in the byte order `order`: one of
    /// the keys lies at or above a list of the index, or inside a list that keeps entries.
    /// Told from the keys' bytes and the lists' markers (`keptLists` first), with no path or
    /// entry built: a message to a chat whose members' lists are all small changes no index key,
    /// and one to a chat whose own list keeps entries changes that index's alone.
    static func indexesToUpdate(
        _ dataKeys: [[UInt8]],
        inKeyOrder order: [Int],
        reader: NamespaceReader,
        keptLists: KeptLists?,
        searching: Bool = true
    ) -> [RegisteredIndex] {
        var reached: [RegisteredIndex] = []
        let start = SubtreeShapes.namespacePrefixLength
        // The fewest bytes a key has past the namespace's prefix.
        let shortest = dataKeys.withUnsafeBufferPointer { $0.reduce(Int.max) { min($0, $1.count) } } - start
        for index in reader.indexes {
            let depth = index.spec.location.count
            let fixed = index.fixedLocation
            // The ranks (in key order) of the keys that may reach the index's locations. When
            // every key is longer than the fixed part, those are the keys that start with it:
            // next to each other in key order, found by a binary search rather than a
            // comparison per key and index (a chat message has hundreds of keys, the shipped
            // rules seven indexes). Otherwise (or unless `searching`: the tests' reference)
            // every key is looked at.
            var ranks = 0..<order.count
            if searching && !fixed.isEmpty && shortest > fixed.count {
                var low = 0
                var high = order.count
                while low < high {
                    let middle = (low + high) / 2
                    if KeyBytes.precedes(dataKeys[order[middle]], from: start, fixed) {
                        low = middle + 1
                    } else {
                        high = middle
                    }
                }
                var end = low
                while end < order.count && mayReach(dataKeys[order[end]], fixed: fixed) { end += 1 }
                ranks = low..<end
            }
            // The last child asked about: an entry's position and the end of its child's key.
            var last: (position: Int, length: Int)?
            for position in order[ranks] {
                let dataKey = dataKeys[position]
                // Below the child asked about last (the keys of one child come together in key
                // order): nothing new, and no segment to walk.
                if let last, dataKey.count > last.length,
                    KeyBytes.hasPrefix(dataKey, dataKeys[last.position], length: last.length)
                {
                    continue
                }
                guard mayReach(dataKey, fixed: index.fixedLocation) else { continue }
                // Fewer segments than a child of a list has: at or above the lists.
                guard let located = LocatedChild(in: dataKey, depth: depth) else {
                    reached.append(index)
                    break
                }
                last = (position, located.childEnd)
                guard index.isList(dataKey, end: located.listEnd) else { continue }
                if keepsEntries(index.id, located, reader: reader, keptLists: keptLists) {
                    reached.append(index)
                    break
                }
            }
        }
        return reached
    }

    /// The indexed value a write sets (`value`), and the leaf it replaces when the writer
    /// remembers it (`previousLeaf`: the old indexed value, whose child existed).
    struct WrittenValue {
        let value: IndexValueEncoding.Indexed
        let previousLeaf: LeafValue?
    }

    /// The new indexed value of the child whose entries start at `order[rank]` (their data
    /// keys share its first `childKeyLength` bytes), when one of them writes it: an entry at
    /// exactly the indexed path under the child, with a node (which also keeps the child in
    /// place). Nil when none does: the post-write view decides.
    static func writtenValue(
        of index: RegisteredIndex,
        in entries: [PlannedEntry],
        order: [Int],
        from rank: Int,
        childKeyLength: Int
    ) -> WrittenValue? {
        let first = entries[order[rank]]
        let childDepth = index.spec.location.count + 1
        let indexed = index.childPath.keys
        var next = rank
        while next < order.count {
            let entry = entries[order[next]]
            guard KeyBytes.hasPrefix(entry.dataKey, first.dataKey, length: childKeyLength) else { break }
            next += 1
            guard !entry.isPriority, let node = entry.node, entry.path.depth == childDepth + indexed.count else {
                continue
            }
            if entry.path.keys[childDepth...].elementsEqual(indexed) {
                return WrittenValue(value: IndexValueEncoding.Indexed(node), previousLeaf: entry.previousLeaf)
            }
        }
        return nil
    }

    /// A child of an indexed list located in a data key: the list's segments run from the end
    /// of the namespace prefix to `listEnd`, the child's from there to `childEnd`. Index keys are
    /// made of these bytes, with no path encoded again.
    struct LocatedChild {
        let dataKey: [UInt8]
        let listEnd: Int
        let childEnd: Int

        /// The child of a list `depth` segments deep that data key `dataKey` lies at or in;
        /// nil when the key has no more than `depth` segments (it is at or above the lists).
        init?(in dataKey: [UInt8], depth: Int) {
            guard let listEnd = IndexMaintenance.prefixLength(of: dataKey, segments: depth),
                let childEnd = dataKey.withUnsafeBytes({ KeyEncoding.segmentEnd($0, from: listEnd) })
            else { return nil }
            (self.dataKey, self.listEnd, self.childEnd) = (dataKey, listEnd, childEnd)
        }

        /// `table`, the list, `value` (an entry's encoded index value), the child: the key of
        /// an index entry (`KeySpace.indexEntryKey`); with no value, the child's entry identity
        /// (`IndexPlanNotes`, never stored).
        func key(in table: [UInt8], value: [UInt8] = []) -> [UInt8] {
            let start = SubtreeShapes.namespacePrefixLength
            var key: [UInt8] = []
            key.reserveCapacity(table.count + childEnd - start + value.count)
            key.append(contentsOf: table)
            key.append(contentsOf: dataKey[start..<listEnd])
            key.append(contentsOf: value)
            key.append(contentsOf: dataKey[listEnd..<childEnd])
            return key
        }

        /// True when the located bytes are the key encoding of `child`, the child's path
        /// (checked in debug builds).
        func matches(_ child: DataPath) -> Bool {
            var expected: [UInt8] = []
            KeyEncoding.append(child, to: &expected)
            return dataKey[SubtreeShapes.namespacePrefixLength..<childEnd].elementsEqual(expected)
        }
    }

    /// True when data key `key` may lie at, above or below a location of the index whose fixed
    /// part is `fixed` (`RegisteredIndex.fixedLocation`): the bytes both have agree.
    static func mayReach(_ key: [UInt8], fixed: [UInt8]) -> Bool {
        let start = SubtreeShapes.namespacePrefixLength
        let count = min(fixed.count, key.count - start)
        guard count > 0 else { return true }
        return key.withUnsafeBytes { key in
            fixed.withUnsafeBytes { fixed in memcmp(key.baseAddress! + start, fixed.baseAddress!, count) == 0 }
        }
    }

    /// True when the located child's list keeps entries in index `id` (its marker is stored).
    private func keepsEntries(_ id: UInt32, _ located: LocatedChild) -> Bool {
        Self.keepsEntries(id, located, reader: reader, keptLists: keptLists)
    }

    private static func keepsEntries(
        _ id: UInt32,
        _ located: LocatedChild,
        reader: NamespaceReader,
        keptLists: KeptLists?
    ) -> Bool {
        let segments = SubtreeShapes.namespacePrefixLength..<located.listEnd
        let keys = reader.keys
        let marker = { keys.keptListKey(id, segments: located.dataKey[segments]) }
        guard let keptLists else { return reader.snapshot.get(marker()) != nil }
        let snapshot = reader.snapshot
        return keptLists.keepsEntries(indexID: id, key: located.dataKey, segments: segments, makeMarker: marker) {
            snapshot.get($0) != nil
        }
    }

    /// The length of the first `segments` segments of data key `key` (after the table tag and
    /// namespace id), or nil when it has fewer.
    static func prefixLength(of key: [UInt8], segments: Int) -> Int? {
        key.withUnsafeBytes { segmentsEnd($0, from: SubtreeShapes.namespacePrefixLength, count: segments) }
    }

    /// The end of the `count` key segments that start at `offset` in `bytes`, or nil when
    /// fewer follow.
    static func segmentsEnd(_ bytes: UnsafeRawBufferPointer, from offset: Int, count: Int) -> Int? {
        var offset = offset
        for _ in 0..<count {
            guard let end = KeyEncoding.segmentEnd(bytes, from: offset) else { return nil }
            offset = end
        }
        return offset
    }

    /// True when `path`'s keys agree with the index location's fixed keys as far as both go: a
    /// path no deeper than the location can lead to an indexed list, a deeper one lies in one.
    private func matchesPrefix(_ spec: IndexSpec, _ path: DataPath) -> Bool {
        for (segment, key) in zip(spec.location, path.keys) {
            if case .key(let expected) = segment, expected != key { return false }
        }
        return true
    }

    /// The subtree at `path` (at or above indexed locations) was replaced by `node`: drop every
    /// entry and list marker below it, and give each new list holding more than
    /// `ListIndexing.smallListLimit` children its entries and marker.
    private func reindex(_ index: RegisteredIndex, at path: DataPath, node: Node?) {
        batch.noteKeptListsChanged()
        keptLists?.forget()
        var entries = keys.indexPrefix(index.id)
        KeyEncoding.append(path, to: &entries)
        for prefix in [entries, keys.keptListKey(index.id, list: path)] {
            var deleted = 0
            reader.scan(prefix) { key, _ in
                batch.delete(Array(key))
                deleted += 1
            }
            batch.noteCleared(prefix: prefix, deletedKeys: deleted)
        }
        guard let node else { return }
        let limit = reader.listIndexing.smallListLimit
        IndexMaintenance.forEachLocation(of: index.spec, in: node, at: path) { list, children in
            guard children.count > limit else { return }
            for (childKey, child) in zip(children.keys, children.nodes) {
                let indexed = IndexValueEncoding.Indexed(child.descendant(index.childPath))
                put(index, list: list, child: childKey, value: indexed)
            }
            batch.put(keys.keptListKey(index.id, list: list), [])
            batch.put(keys.indexLayoutKey, [])
        }
    }

    /// Re-derives the entry of one child whose subtree the write touched (the child of an
    /// indexed list that `path` lies at or below): nothing to do when its indexed value stays
    /// the same; otherwise the old entry is deleted and the new one put (or none, when the
    /// child goes). The old value is the pre-image: as a staged write of the group left it,
    /// else the leaf the writer remembers replacing, else the snapshot's data.
    /// - Parameter located: where the list's and child's key segments lie in a data key.
    /// - Parameter table: the index's key prefix.
    /// - Parameter written: the new indexed value when the write sets it (`writtenValue`).
    private func refresh(
        _ index: RegisteredIndex,
        childOf path: DataPath,
        at located: LocatedChild,
        in table: [UInt8],
        written: WrittenValue? = nil
    ) {
        let identity = located.key(in: table)
        let old: [UInt8]?
        if let staged = notes?.stagedValue(identity) {
            old = staged
        } else if let leaf = written?.previousLeaf {
            old = IndexValueEncoding.encode(.leaf(leaf))
        } else if let shapes, shapes.isPastTail(Array(located.dataKey[0..<located.childEnd])) {
            // A new child after its list's known end (a chat's new message): no entry yet.
            old = nil
        } else {
            old = storedValue(index, of: located)
        }
        let new: [UInt8]?
        if let written {
            new = IndexValueEncoding.encode(written.value)
        } else {
            let childPath = DataPath(keys: Array(path.keys[0...index.spec.location.count]))
            new =
                view.state(of: childPath) == .missing
                ? nil : IndexValueEncoding.encode(view.state(of: childPath.appending(index.childPath)))
        }
        if let old, let new, KeyBytes.equal(old, new) { return }
        if let old { batch.delete(located.key(in: table, value: old)) }
        if let new { batch.put(located.key(in: table, value: new), []) }
        notes?.noteIndexedValue(identity, new)
    }

    /// The encoded indexed value of the located child in the snapshot (so its entry's value),
    /// or nil when the child does not exist: one point read when the indexed value is a leaf.
    private func storedValue(_ index: RegisteredIndex, of located: LocatedChild) -> [UInt8]? {
        let childKey = Array(located.dataKey[0..<located.childEnd])
        let indexedKey = index.childPathKey.isEmpty ? childKey : childKey + index.childPathKey
        if let bytes = reader.snapshot.get(indexedKey), let leaf = bytes.withUnsafeBytes({ ValueEncoding.decode($0) }) {
            return IndexValueEncoding.encode(.leaf(leaf))
        }
        let state = reader.storedState(dataKey: indexedKey)
        if state != .missing { return IndexValueEncoding.encode(state) }
        if index.childPathKey.isEmpty || reader.storedState(dataKey: childKey) == .missing { return nil }
        return IndexValueEncoding.encode(.missing)
    }

    private func put(_ index: RegisteredIndex, list: DataPath, child: ChildKey, value: IndexValueEncoding.Indexed) {
        let encoded = IndexValueEncoding.encode(value)
        batch.put(keys.indexEntryKey(index.id, list: list, value: encoded, child: child), [])
        notes?.noteIndexedValue(keys.indexEntryKey(index.id, list: list, value: [], child: child), encoded)
    }

    /// Calls `body` for every indexed location inside `node` (which sits at `path`).
    static func forEachLocation(
        of spec: IndexSpec,
        in node: Node,
        at path: DataPath,
        _ body: (DataPath, Children) -> Void
    ) {
        guard case .children(let children, _) = node else { return }
        if path.depth == spec.location.count {
            body(path, children)
            return
        }
        switch spec.location[path.depth] {
        case .key(let key):
            if let child = children[key] { forEachLocation(of: spec, in: child, at: path.child(key), body) }
        case .wildcard:
            for (key, child) in zip(children.keys, children.nodes) {
                forEachLocation(of: spec, in: child, at: path.child(key), body)
            }
        }
    }
}
