import HearthCore

/// Turns one `Write` into one LevelDB batch: data, index entries and the sequence number.
/// Runs on the namespace's serial writer, so the snapshot it reads is the latest state.
struct WritePlanner {
    let reader: NamespaceReader
    let batch: WriteBatch
    /// The writer's remembered subtree keys: used to replace a subtree without an iterator, and
    /// given this write's change (`staged`). Nil: neither.
    var shapes: SubtreeShapes? = nil
    /// What index maintenance reads and writes, for staging; nil: not noted.
    var indexNotes: IndexPlanNotes? = nil
    /// What the writer remembers of which indexed lists keep entries; nil: markers are read.
    var keptLists: KeptLists? = nil
    /// Whether a seek that finds nothing at or after a new child teaches `shapes` its parent's
    /// end (`SubtreeShapes.isPastTail`): only when the snapshot holds every write the writer
    /// remembers (nothing staged in the round).
    var learnsTails = false
    var keys: KeySpace { reader.keys }

    /// Adds the write to the batch. Returns the resolved values, or the current value and ETag
    /// when the `ifMatch` condition fails (nothing is added then).
    /// - Parameter locations: where `write` lands, when the caller worked it out already.
    func plan(_ write: Write, now: Double, locations: WriteLocations? = nil) throws -> WriteResult {
        let locations = try locations ?? WriteLocations(of: write, keys: keys)
        let located = locations.located
        shapes?.staged.tails.removeAll()
        // The locations in the byte order of their keys, the order they are put in.
        let order = locations.order
        let target: DataPath
        switch write.operation {
        case .set(let path, _): target = path
        case .update(let path, _): target = path
        }
        if let expected = write.ifMatch {
            let current = reader.node(at: target.isPriorityPath ? target.parent! : target)
            let etag = current.map(ValueHash.hash) ?? "null_etag"
            if etag != expected { return .conditionFailed(current: current, etag: etag) }
        }
        let hashes = locations.hashes
        if located.count >= 16 {
            // A fan-out's keys and small values, in one growth of the batch's buffers.
            let keyBytes = located.dataKeys.withUnsafeBufferPointer { $0.reduce(0) { $0 + $1.count } }
            batch.reserve(operations: located.count, bytes: keyBytes + 16 * located.count)
        }
        var values = [Node?](repeating: nil, count: located.count)
        // The keys put under each location, for the staged change (kept here, set once; made
        // with the first one: a write of new nodes records none).
        var recorded: [SubtreeShapes.Shape?] = []
        var present = [Bool](repeating: false, count: shapes == nil ? 0 : located.count)
        var fromMemory = [Bool](repeating: false, count: shapes == nil ? 0 : located.count)
        // The leaves the writer remembers at the locations before the write: the pre-images
        // index maintenance starts from.
        var previousLeaves: [LeafValue?] = []
        // The new values, taken out of the operation once rather than once per location.
        let setValue: NewValue?
        let entries: [UpdateEntry]
        switch write.operation {
        case .set(_, let value):
            setValue = value
            entries = []
        case .update(_, let updates):
            setValue = nil
            entries = updates
        }
        // Bound once: looked up for every location.
        let shapes = self.shapes
        for index in order {
            let value: NewValue
            if let setValue { value = setValue } else { value = entries[index].value }
            // A location's absolute path is built only where it is needed (a read beside a
            // remembered node, a post-write view): not for each of a fan-out's counters.
            let dataKey = located.dataKeys[index]
            let isPriority = located.isPriority[index]
            var known: SubtreeShapes.Shape?
            if let shapes { known = shapes.shape(at: dataKey, hash: hashes[index]) }
            if let leaf = known?.leaf, !isPriority {
                if previousLeaves.isEmpty { previousLeaves = Array(repeating: nil, count: located.count) }
                previousLeaves[index] = leaf
            }
            let resolved: Node?
            // Planned from memory alone: the keys it replaces are remembered, and so is the
            // number an increment adds to.
            var memoryOnly = known != nil && !isPriority
            if value.serverValues.isEmpty {
                resolved = value.node
            } else if !isPriority, value.serverValues.count == 1, !value.serverValues[0].isPriority,
                value.serverValues[0].path.isRoot
            {
                // One server value at the location itself (a counter's increment, a timestamp):
                // resolved here, with no closure per location.
                let leaf: LeafValue
                switch value.serverValues[0].value {
                case .timestamp:
                    leaf = .number(now)
                case .increment(let delta):
                    if known?.isLeaf != true { memoryOnly = false }
                    if case .leaf(.number(let n), _)? = storedNode(dataKey: dataKey, known: known, located, index) {
                        leaf = .number(n + delta)
                    } else {
                        leaf = .number(delta)
                    }
                }
                resolved = .leaf(leaf, priority: value.node?.priority)
            } else {
                resolved = ServerValueResolver.resolve(value, now: now) { relative in
                    guard relative.isRoot && !isPriority else {
                        memoryOnly = false
                        return reader.node(at: located.path(index).appending(relative))
                    }
                    if known?.isLeaf != true { memoryOnly = false }
                    return storedNode(dataKey: dataKey, known: known, located, index)
                }
            }
            if shapes != nil { fromMemory[index] = memoryOnly }
            values[index] = resolved
            if !isPriority {
                let existed = replace(resolved, dataKey: dataKey, known: known, located, index)
                // Remembered from its second write on: a node written once (a new message, a
                // pushed child) would only fill the writer's memory.
                if let shape = put(resolved, dataKey: dataKey, hash: hashes[index], recording: shapes != nil && existed)
                {
                    if recorded.isEmpty { recorded = Array(repeating: nil, count: located.count) }
                    recorded[index] = shape
                }
                if shapes != nil { present[index] = resolved != nil }
            }
        }
        // What the entries leave around them matters only for priorities, deletes and indexes.
        // Index maintenance notes what it reads (`indexNotes`); priorities and deletes read
        // the state around them unnoted, so nothing of such a write is planned from memory.
        let readsAroundUnnoted = located.isPriority.contains(true) || values.contains(where: { $0 == nil })
        if let shapes {
            var change = SubtreeShapes.Change(written: located.dataKeys, hashes: hashes)
            change.recorded = recorded
            change.present = present
            if !readsAroundUnnoted { change.fromMemory = fromMemory }
            change.tails = shapes.staged.tails
            shapes.staged = change
        }
        // The indexes this write may change: every one when it reads around its locations;
        // else those whose lists it reaches at or above, or inside a list that keeps entries.
        let maintained =
            readsAroundUnnoted
            ? reader.indexes
            : RegisteredIndex.mayChange(reader.indexes, at: locations, keys: keys)
                ? IndexMaintenance.indexesToUpdate(
                    located.dataKeys,
                    inKeyOrder: order,
                    reader: reader,
                    keptLists: keptLists
                ) : []
        if readsAroundUnnoted || !maintained.isEmpty {
            // In key order. Index maintenance looks only at the locations at, above or below the
            // location (its fixed part) of an index it keeps in step: a message to a chat whose
            // list keeps entries builds no path for its members' counters. Priorities and
            // deletes look around every location.
            let entries = order.compactMap { index -> PlannedEntry? in
                let dataKey = located.dataKeys[index]
                guard
                    readsAroundUnnoted
                        || maintained.contains(where: { IndexMaintenance.mayReach(dataKey, fixed: $0.fixedLocation) })
                else { return nil }
                let path = located.path(index)
                let isPriority = located.isPriority[index]
                return PlannedEntry(
                    path: isPriority ? path.parent! : path,
                    isPriority: isPriority,
                    node: values[index],
                    dataKey: dataKey,
                    previousLeaf: previousLeaves.isEmpty ? nil : previousLeaves[index]
                )
            }
            let entryOrder = Array(entries.indices)
            let view = PostWriteView(
                reader: reader,
                entries: entries,
                inKeyOrder: entryOrder,
                shapes: shapes,
                reads: indexNotes?.reads
            )
            for entry in entries where entry.isPriority {
                setPriority(entry, view: view)
            }
            removeOrphanPriorities(entries: entries, view: view)
            IndexMaintenance(
                reader: reader,
                batch: batch,
                view: view,
                notes: indexNotes,
                keptLists: keptLists,
                shapes: shapes
            )
            .update(for: entries, inKeyOrder: entryOrder, indexes: maintained)
        }
        return .committed(sequence: 0, values: values)
    }

    /// The node stored at data key `dataKey` (the location of entry `index` of `located`) before
    /// the write, for an increment. A leaf costs one point read, and one more for its priority
    /// unless the writer remembers writing the leaf alone; no iterator, which would step over
    /// every unflushed version of a hot counter's neighbours.
    private func storedNode(
        dataKey: [UInt8],
        known: SubtreeShapes.Shape?,
        _ located: borrowing LocatedEntries,
        _ index: Int
    ) -> Node? {
        if let leaf = known?.leaf { return .leaf(leaf, priority: nil) }
        if let bytes = reader.snapshot.get(dataKey), let leaf = bytes.withUnsafeBytes({ ValueEncoding.decode($0) }) {
            if let known, known.keys.count == 1, known.keys[0] == dataKey {
                return .leaf(leaf, priority: nil)
            }
            if reader.snapshot.get(dataKey + [KeyEncoding.priorityMarker]) == nil {
                return .leaf(leaf, priority: nil)
            }
        }
        return reader.node(at: located.path(index))
    }

    /// Deletes what `node` replaces at `dataKey` (the location of entry `index` of `located`;
    /// `known`: its keys as the writer remembers them). True when anything was there.
    @discardableResult
    private func replace(
        _ node: Node?,
        dataKey: [UInt8],
        known shape: SubtreeShapes.Shape?,
        _ located: borrowing LocatedEntries,
        _ index: Int
    ) -> Bool {
        if let shape {
            // The writer's own last write there: its keys, and the path exists (so every
            // ancestor is an object).
            // A key put again overwrites it: no delete (one memtable entry less each): a leaf
            // rewritten, an object rewritten with the same fields (a chat's `lastMessage`).
            if shape.isLeaf {
                if node?.isLeaf != true { batch.delete(dataKey) }
            } else {
                for key in shape.keys where !(node.map { Self.puts($0, key, below: dataKey) } ?? false) {
                    batch.delete(key)
                }
            }
            if node == nil && (shape.isLeaf || !shape.keys.isEmpty) { batch.noteDeleted(prefix: dataKey) }
            return true
        }
        // The parent's data key within `dataKey`, for what the writer knows of the parent.
        let parentKey = shapes == nil ? nil : SubtreeShapes.parent(of: dataKey)
        // A leaf ancestor turns into an object: its value goes (its priority stays). When the
        // writer knows no ancestor is a leaf (it wrote a sibling since anything was written
        // above), nothing to do; when the parent already has a child, it and every ancestor are
        // objects: one seek instead of a point read per ancestor.
        if node != nil, let parent = located.path(index).parent,
            !(shapes?.noLeafAbove(dataKey, parent: parentKey) ?? false),
            !hasChild(parent, reader.snapshot.sharedCursor())
        {
            var probe = Optional(parent)
            while let ancestor = probe {
                let key = keys.dataKey(ancestor)
                if reader.snapshot.get(key) != nil { batch.delete(key) }
                probe = ancestor.parent
            }
        }
        // A child after its list's known end: nothing there to replace.
        if let shapes, shapes.isPastTail(dataKey, parent: parentKey) {
            batch.noteCleared(prefix: dataKey, deletedKeys: 0)
            return false
        }
        // Made on first use: a write the writer answers from memory makes no iterator.
        let cursor = reader.snapshot.sharedCursor()
        cursor.seek(dataKey)
        if learnsTails, let shapes, let parentKey, !cursor.hasPrefix(dataKey),
            !cursor.hasPrefix(dataKey, count: parentKey.length)
        {
            // Nothing under the parent at or after this child.
            shapes.staged.tails.append(dataKey)
        }
        var deleted = 0
        if cursor.hasPrefix(dataKey) && cursor.keyBytes.count == dataKey.count {
            // A leaf: only its priority can be below it. A point read, not `next()`, which would
            // walk every unflushed older version of a hot leaf (a counter, a presence flag).
            batch.delete(dataKey)
            let priorityKey = dataKey + [KeyEncoding.priorityMarker]
            if reader.snapshot.get(priorityKey) != nil { batch.delete(priorityKey) }
            deleted = 1
        } else {
            while cursor.hasPrefix(dataKey) {
                let current = Array(cursor.keyBytes)
                batch.delete(current)
                deleted += 1
                // Seek past the key rather than `next()`, which walks every unflushed older
                // version of a hot key; a large subtree keeps the cheaper `next()`.
                if deleted <= 16 { cursor.seek(current + [0]) } else { cursor.next() }
            }
        }
        batch.noteCleared(prefix: dataKey, deletedKeys: deleted)
        // A deleted hot node leaves its many unflushed versions behind a tombstone, and every
        // later seek that passes it (writes to a sibling before it, reads of the parent) steps
        // over each of them until LevelDB compacts the range.
        if node == nil && deleted > 0 { batch.noteDeleted(prefix: dataKey) }
        return deleted > 0
    }

    /// True when putting `node` at `dataKey` puts `key` (a key at or below `dataKey`) again: a
    /// leaf, or a priority, of `node` lies there.
    static func puts(_ node: Node, _ key: [UInt8], below dataKey: [UInt8]) -> Bool {
        guard key.count >= dataKey.count else { return false }
        return key.withUnsafeBytes { bytes in
            var current = node
            var offset = dataKey.count
            while offset < bytes.count {
                if bytes[offset] == KeyEncoding.priorityMarker {
                    return offset + 1 == bytes.count && current.priority != nil
                }
                guard let end = KeyEncoding.segmentEnd(bytes, from: offset),
                    let child = current.child(KeyEncoding.decodeKey(bytes, start: offset, end: end))
                else { return false }
                current = child
                offset = end
            }
            return current.isLeaf
        }
    }

    /// Puts `node` at `dataKey` (`hash`: `SubtreeShapes.hash(dataKey)`, kept with a leaf's
    /// put for the group's `keepingLastWriteOfEachKey`). When `recording`, returns the keys put
    /// when they are few (a leaf without priority: its value), for the staged shapes.
    private func put(_ node: Node?, dataKey: [UInt8], hash: UInt64, recording: Bool) -> SubtreeShapes.Shape? {
        guard let node else { return nil }
        if case .leaf(let value, nil) = node {
            batch.put(dataKey, encoding: value, hash: hash)
            return recording ? .leaf(value) : nil
        }
        var key = dataKey
        guard recording else {
            var nothing: [[UInt8]]? = nil
            putNode(node, key: &key, recording: &nothing)
            return nil
        }
        var written: [[UInt8]]? = []
        putNode(node, key: &key, recording: &written)
        return written.map { .keys($0) }
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
