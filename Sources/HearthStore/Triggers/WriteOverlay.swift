import HearthCore

/// A write's resolved changes laid over the state it was planned against: what each location
/// holds after them, and the same changes with more laid on top, as one set of disjoint
/// locations (a later change wins where two overlap).
struct WriteOverlay {
    /// Replaced locations (absolute, none containing another) and their new nodes.
    private(set) var entries: [(path: DataPath, node: Node?)] = []
    /// Priorities set by the write: the owner's path and the priority leaf (nil clears).
    private(set) var priorities: [(owner: DataPath, node: Node?)] = []
    let reader: NamespaceReader
    /// The writer's remembered subtrees: a leaf it wrote is read from there, with no read of
    /// the store (the writer's own last value there, exactly what the snapshot holds unless a
    /// write staged in the round changed it, which then makes the write wait for the flush).
    var shapes: SubtreeShapes?
    /// Where the entries lie: a trigger may lay hundreds of updates, and finding what covers
    /// or lies below a path by scanning every entry made that quadratic.
    private var tree = EntryTree()

    /// The changes of a planned write (`values` resolved, in the order of its paths).
    init(_ write: Write, values: [Node?], reader: NamespaceReader) {
        self.reader = reader
        for (path, node) in zip(write.writtenPaths, values) {
            if path.isPriorityPath, let owner = path.parent {
                priorities.append((owner, node))
            } else {
                append(path, node)
            }
        }
    }

    /// The index of the entry at `path` or above it.
    func covering(_ path: DataPath) -> Int? {
        tree.covering(path.keys[...])
    }

    /// Adds an entry that neither contains nor lies in another.
    private mutating func append(_ path: DataPath, _ node: Node?) {
        tree.insert(path.keys[...], index: entries.count)
        entries.append((path, node))
    }

    /// What `path` holds after the changes.
    func value(at path: DataPath) -> Node? {
        if let index = covering(path) {
            let covering = entries[index]
            return covering.node?.descendant(covering.path.relative(path)!)
        }
        var node = reader.node(at: path)
        if tree.hasEntries(below: path.keys[...]) {
            for entry in entries where path.contains(entry.path) {
                node = Self.replacing(node, at: path.relative(entry.path)!.keys[...], with: entry.node)
            }
        }
        for priority in priorities where path.contains(priority.owner) {
            node = Self.prioritising(node, at: path.relative(priority.owner)!.keys[...], with: priority.node)
        }
        return node
    }

    /// What `path` holds after the changes when only a leaf's value matters (its priority is
    /// left out, an object reads as nil): one point read when the changes do not touch it.
    func leafValue(at path: DataPath) -> Node? {
        if covering(path) != nil || tree.hasEntries(below: path.keys[...]) {
            guard case .leaf(let value, _)? = value(at: path) else { return nil }
            return .leaf(value, priority: nil)
        }
        let key = reader.keys.dataKey(path)
        if let leaf = shapes?.rememberedLeaf(at: key) { return .leaf(leaf, priority: nil) }
        return reader.snapshot.get(key).flatMap { bytes in bytes.withUnsafeBytes { ValueEncoding.decode($0) } }
            .map { .leaf($0, priority: nil) }
    }

    /// Lays `node` over `path`, after everything before it.
    mutating func replace(_ path: DataPath, with node: Node?) {
        if let index = covering(path) {
            let base = entries[index]
            entries[index].node = Self.replacing(base.node, at: base.path.relative(path)!.keys[...], with: node)
            return
        }
        if tree.hasEntries(below: path.keys[...]) {
            let kept = entries.filter { !path.contains($0.path) }
            entries = []
            tree = EntryTree()
            for entry in kept { append(entry.path, entry.node) }
        }
        if !priorities.isEmpty { priorities.removeAll { path.contains($0.owner) } }
        append(path, node)
    }

    /// The changes as one multi-path update at the root (priorities as `.priority` paths).
    var write: Write {
        var updates = entries.map { UpdateEntry(path: $0.path, value: NewValue(node: $0.node)) }
        for priority in priorities {
            updates.append(
                UpdateEntry(path: priority.owner.child(ChildKey(".priority")), value: NewValue(node: priority.node))
            )
        }
        return Write(.update(.root, updates))
    }

    /// `base` with the node at `path` (relative) replaced by `node`; an object left empty
    /// vanishes, as in the store.
    static func replacing(_ base: Node?, at path: ArraySlice<ChildKey>, with node: Node?) -> Node? {
        guard let key = path.first else { return node }
        var children = Children()
        if case .children(let existing, _)? = base { children = existing }
        children[key] = replacing(children[key], at: path.dropFirst(), with: node)
        return children.isEmpty ? nil : .children(children, priority: base?.priority)
    }

    /// `base` with the priority of the node at `path` (relative) set from `leaf`, when that
    /// node exists.
    static func prioritising(_ base: Node?, at path: ArraySlice<ChildKey>, with leaf: Node?) -> Node? {
        guard let base else { return nil }
        guard let key = path.first else {
            switch leaf {
            case .leaf(.number(let n), _)?: return base.withPriority(.number(n))
            case .leaf(.string(let s), _)?: return base.withPriority(.string(s))
            default: return base.withPriority(nil)
            }
        }
        guard case .children(var children, let priority) = base, let child = children[key] else { return base }
        children[key] = prioritising(child, at: path.dropFirst(), with: leaf)
        return .children(children, priority: priority)
    }
}
