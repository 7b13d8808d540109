import HearthCore

/// Turns one `Write` into one LevelDB batch: data, index entries and the sequence number.
/// Runs on the namespace's serial writer, so the snapshot it reads is the latest state.
struct WritePlanner {
    let reader: NamespaceReader
    let batch: WriteBatch
    /// The writer's remembered subtree keys: used to replace a subtree without an iterator, and
    /// given this write's change (`staged`). Nil: neither.
    var shapes: SubtreeShapes? = nil
    var keys: KeySpace { reader.keys }

    /// Adds the write to the batch. Returns the resolved values, or the current value and ETag
    /// when the `ifMatch` condition fails (nothing is added then).
    func plan(_ write: Write, now: Double) throws -> WriteResult {
        let target: DataPath
        let requested: [(path: DataPath, value: NewValue)]
        switch write.operation {
        case .set(let path, let value):
            target = path
            requested = [(path, value)]
        case .update(let path, let entries):
            target = path
            requested = entries.map { (path.appending($0.path), $0.value) }
            try WritePlanner.checkDisjoint(requested.map(\.path))
        }
        if let expected = write.ifMatch {
            let current = reader.node(at: target.isPriorityPath ? target.parent! : target)
            let etag = current.map(ValueHash.hash) ?? "null_etag"
            if etag != expected { return .conditionFailed(current: current, etag: etag) }
        }
        shapes?.staged = SubtreeShapes.Change()
        var entries: [PlannedEntry] = []
        var values: [Node?] = []
        for (path, value) in requested {
            let resolved = ServerValueResolver.resolve(value, now: now) { relative in
                reader.node(at: path.appending(relative))
            }
            values.append(resolved)
            if path.isPriorityPath {
                let owner = path.parent!
                entries.append(
                    PlannedEntry(path: owner, isPriority: true, node: resolved, dataKey: keys.dataKey(owner))
                )
            } else {
                entries.append(PlannedEntry(path: path, isPriority: false, node: resolved, dataKey: keys.dataKey(path)))
            }
        }
        shapes?.staged.written = entries.map(\.dataKey)
        let view = PostWriteView(reader: reader, entries: entries)
        for entry in entries where !entry.isPriority {
            replace(entry)
        }
        for entry in entries where entry.isPriority {
            setPriority(entry, view: view)
        }
        removeOrphanPriorities(entries: entries, view: view)
        IndexMaintenance(reader: reader, batch: batch, view: view).update(for: entries)
        return .committed(sequence: 0, values: values)
    }

    /// Update paths must not contain one another (Firebase refuses such updates).
    static func checkDisjoint(_ paths: [DataPath]) throws {
        let sorted = paths.sorted()
        for (a, b) in zip(sorted, sorted.dropFirst()) {
            let ownerA = a.isPriorityPath ? a.parent! : a
            if a.contains(b) || (a.isPriorityPath && b.contains(ownerA)) || (b.isPriorityPath && a == b.parent!) {
                throw StoreError(
                    .invalidWrite,
                    "Invalid update: the paths '\(a)' and '\(b)' overlap; an update's paths must not contain one another."
                )
            }
        }
    }

    /// Replaces the subtree at the entry's path with its node.
    private func replace(_ entry: PlannedEntry) {
        if let known = shapes?.keys(at: entry.dataKey) {
            // The writer's own last write there: its keys, and the path exists (so every
            // ancestor is an object).
            for key in known { batch.delete(key) }
            if entry.node == nil && !known.isEmpty { batch.noteDeleted(prefix: entry.dataKey) }
            put(entry)
            return
        }
        let cursor = reader.snapshot.sharedCursor()
        // A leaf ancestor turns into an object: its value goes (its priority stays). When the
        // parent already has a child, it and every ancestor are objects: one seek instead of a
        // point read per ancestor.
        if entry.node != nil, let parent = entry.path.parent, !hasChild(parent, cursor) {
            var probe = Optional(parent)
            while let ancestor = probe {
                let key = keys.dataKey(ancestor)
                if reader.snapshot.get(key) != nil { batch.delete(key) }
                probe = ancestor.parent
            }
        }
        cursor.seek(entry.dataKey)
        var deleted = 0
        if cursor.hasPrefix(entry.dataKey) && cursor.keyBytes.count == entry.dataKey.count {
            // A leaf: only its priority can be below it. A point read, not `next()`, which would
            // walk every unflushed older version of a hot leaf (a counter, a presence flag).
            batch.delete(entry.dataKey)
            let priorityKey = entry.dataKey + [KeyEncoding.priorityMarker]
            if reader.snapshot.get(priorityKey) != nil { batch.delete(priorityKey) }
            deleted = 1
        } else {
            while cursor.hasPrefix(entry.dataKey) {
                let current = Array(cursor.keyBytes)
                batch.delete(current)
                deleted += 1
                // Seek past the key rather than `next()`, which walks every unflushed older
                // version of a hot key; a large subtree keeps the cheaper `next()`.
                if deleted <= 16 { cursor.seek(current + [0]) } else { cursor.next() }
            }
        }
        batch.noteCleared(prefix: entry.dataKey, deletedKeys: deleted)
        // A deleted hot node leaves its many unflushed versions behind a tombstone, and every
        // later seek that passes it (writes to a sibling before it, reads of the parent) steps
        // over each of them until LevelDB compacts the range.
        if entry.node == nil && deleted > 0 { batch.noteDeleted(prefix: entry.dataKey) }
        put(entry)
    }

    /// Puts the entry's node; remembers its keys in the staged shapes when it is small.
    private func put(_ entry: PlannedEntry) {
        guard let node = entry.node else { return }
        var key = entry.dataKey
        // Without shapes to remember, nothing is recorded.
        var written: [[UInt8]]? = shapes == nil ? nil : []
        putNode(node, key: &key, recording: &written)
        if let shapes, let written { shapes.staged.recorded.append((entry.dataKey, written)) }
    }

    /// True when `path` has at least one child (so it is an object, and so are its ancestors).
    /// A child's key is the parent's key followed by a segment that starts with a tag byte
    /// above the priority marker.
    private func hasChild(_ path: DataPath, _ cursor: Cursor) -> Bool {
        var first = keys.dataKey(path)
        let prefix = first
        first.append(KeyEncoding.intTag)
        cursor.seek(first)
        return cursor.hasPrefix(prefix)
    }

    /// Puts the leaves and priorities of `node` below `key` (restored on return), collecting the
    /// keys put into `recording` while there are at most `SubtreeShapes.maxKeys` of them (nil
    /// beyond, or when it starts nil).
    private func putNode(_ node: Node, key: inout [UInt8], recording: inout [[UInt8]]?) {
        if let priority = node.priority {
            key.append(KeyEncoding.priorityMarker)
            batch.put(key, ValueEncoding.encode(priority))
            record(key, &recording)
            key.removeLast()
        }
        switch node {
        case .leaf(let value, _):
            batch.put(key, ValueEncoding.encode(value))
            record(key, &recording)
        case .children(let children, _):
            let length = key.count
            for (childKey, child) in zip(children.keys, children.nodes) {
                KeyEncoding.append(childKey, to: &key)
                putNode(child, key: &key, recording: &recording)
                key.removeSubrange(length...)
            }
        }
    }

    @inline(__always)
    private func record(_ key: [UInt8], _ recording: inout [[UInt8]]?) {
        guard recording != nil else { return }
        if recording!.count >= SubtreeShapes.maxKeys {
            recording = nil
        } else {
            recording!.append(key)
        }
    }

    /// Sets (or clears) the priority of an existing node; a priority on no data is dropped.
    private func setPriority(_ entry: PlannedEntry, view: PostWriteView) {
        let key = keys.priorityKey(entry.path)
        guard view.state(of: entry.path) != .missing else { return }
        switch entry.node {
        case .leaf(.number(let d), _)?: batch.put(key, ValueEncoding.encode(LeafValue.number(d)))
        case .leaf(.string(let s), _)?: batch.put(key, ValueEncoding.encode(LeafValue.string(s)))
        default: batch.delete(key)
        }
    }

    /// A node left without data loses its priority, so no priority outlives its node.
    private func removeOrphanPriorities(entries: [PlannedEntry], view: PostWriteView) {
        var checked = Set<DataPath>()
        for entry in entries where entry.node == nil && !entry.isPriority {
            var probe = entry.path.parent
            while let ancestor = probe, checked.insert(ancestor).inserted {
                let key = keys.priorityKey(ancestor)
                if reader.snapshot.get(key) != nil,
                    view.state(of: ancestor) == .missing
                {
                    batch.delete(key)
                }
                probe = ancestor.parent
            }
        }
    }
}
