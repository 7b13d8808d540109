import HearthCore

/// The LevelDB keys of small subtrees this writer set recently, so that replacing one again
/// deletes its old keys without an iterator, and a leaf it wrote is known to have no priority.
///
/// Why: replacing a subtree must find its old keys, and a LevelDB iterator cannot be bounded
/// above: the step past the subtree's last key walks every unflushed version of every deleted
/// key after it until the next live one. A hot object beside deleted hot siblings (a presence
/// node, a counter, a fan-out benchmark's publisher keys) made each write walk tens of thousands
/// of dead versions. And a multi-path update that rewrites hundreds of hot counters (a chat
/// message with its members' unread counts) would pay two seeks per counter to learn what the
/// writer already knows. The writer knows what it last wrote at a path, as long as nothing else
/// touched that subtree since.
///
/// Up to `capacity` nodes, by the hash of their data key (a hash collision only forgets one of
/// the two). Kept exact by invalidation: every commit through `NamespaceWriter.commit` reports
/// the data keys it wrote, and a remembered node is forgotten when a write lands at, above or
/// below it (one key a byte prefix of the other: the path encoding is prefix-free). At: the
/// written key itself; below: the written key's ancestors, one lookup per segment; above: the
/// written key is an ancestor of a remembered one, known from the set of their ancestors' hashes
/// (which only grows until everything is forgotten, so a stale entry at worst forgets too much):
/// then everything is forgotten. Any other commit (imports, index builds) forgets everything,
/// and so does reaching `capacity`. Touched only on the namespace's writer.
final class SubtreeShapes {
    /// What one commit wrote: the data keys of its locations (priority writes by their owner),
    /// their `hash`es, and for each the keys now under it when they are few (nil: not known).
    struct Change {
        private(set) var written: [[UInt8]] = []
        private(set) var hashes: [UInt64] = []
        /// The keys now under each location, when the writer remembers them (nil: not).
        /// Empty: none (most writes put new nodes, remembered only from their second write).
        var recorded: [Shape?] = []
        /// Whether each location holds data after the commit (its parent is then an object).
        var present: [Bool] = []
        /// Whether the planner wrote each location from what the writer remembers of it alone,
        /// reading nothing there from LevelDB: such a location may be written again in the same
        /// staged group (see `StagedWrites`), since each staged write updates what is
        /// remembered. Empty: none.
        var fromMemory: [Bool] = []
        /// New children the planner's seek found nothing at or after under their parent, in a
        /// round with nothing staged (`SubtreeShapes.isPastTail`).
        var tails: [[UInt8]] = []

        init() {}

        /// - Parameter prefix: a key many of `written` start with (an update's location): its
        ///   hash is computed once and continued over the rest of each such key.
        init(written: [[UInt8]], sharing prefix: [UInt8] = []) {
            self.init(written: written, hashes: SubtreeShapes.hashes(of: written, sharing: prefix))
        }

        /// - Parameter hashes: `SubtreeShapes.hash` of each of `written`, computed before.
        init(written: [[UInt8]], hashes: [UInt64]) {
            self.written = written
            self.hashes = hashes
            present = Array(repeating: false, count: written.count)
        }
    }

    /// What the writer last put under a node: a leaf without priority (its value, at the
    /// node's own key), or the keys put under it. A number or a boolean holds no reference and
    /// no buffer: a chat message rewrites hundreds of counters, each remembered anew.
    enum Shape {
        /// A leaf without priority holding this value (what an increment there starts from);
        /// its one key is the node's own.
        case leaf(LeafValue)
        /// Every key put under the node (its own for a leaf, its priority's); not empty.
        case keys([[UInt8]])

        /// The keys put under the node; empty for a leaf without priority.
        var keys: [[UInt8]] {
            if case .keys(let keys) = self { return keys }
            return []
        }

        /// A leaf without priority: its value.
        var leaf: LeafValue? {
            if case .leaf(let value) = self { return value }
            return nil
        }

        /// True for a leaf without priority.
        var isLeaf: Bool {
            if case .leaf = self { return true }
            return false
        }

        /// Every key under the node whose data key is `dataKey`.
        func allKeys(dataKey: [UInt8]) -> [[UInt8]] {
            switch self {
            case .leaf: [dataKey]
            case .keys(let keys): keys
            }
        }
    }

    /// Subtrees with more keys than this are not remembered.
    static let maxKeys = 32
    /// Nodes remembered at most (then all are forgotten and remembering starts again).
    static let capacity = 8_192
    /// The bytes before a data key's first segment (table tag and namespace id).
    static let namespacePrefixLength = 5

    /// What the write being planned will change, applied by `NamespaceWriter.commit` if it
    /// commits (reset when the next plan starts).
    var staged = Change()

    /// `staged`, taken: it is empty after (so `apply` can move what it recorded).
    func takeStaged() -> Change {
        var change = Change()
        swap(&change, &staged)
        return change
    }

    private var shapes = HashMap64<(dataKey: [UInt8], shape: Shape)>(capacity: 1_024)
    /// Hashes of the proper ancestors (namespace root included) of remembered nodes.
    private var ancestors = HashSet64(capacity: 1_024)
    /// The data keys (by hash) of the parents of nodes written (with data) since everything was
    /// last forgotten: each was an object then (a child existed), and nothing was written at or
    /// above it since (such a write is at one of `ancestors`, which then holds it and its
    /// ancestors, and forgets everything). A
    /// write below may have deleted its last child, but only a write at or above it could
    /// have made it or an ancestor a leaf: so none of them is a leaf.
    private var objects = HashMap64<[UInt8]>(capacity: 256)

    /// Lists whose end the writer knows, by the hash of the list node's data key: no key under
    /// `parent` sorts after the subtree of its child `last`. Learned from a planner's seek that
    /// found nothing at or after a new child (`Change.tails`); moved on by every later write
    /// below the node that leaves data after `last` (found in `apply`'s walk of a written key's
    /// ancestors); forgotten with everything when a write lands at or above the node (the node
    /// and its ancestors are in `ancestors`). A write of a child after `last` then needs no
    /// seek to find what it replaces: nothing (a chat's new message, a pushed child, a counter
    /// of a new sequence number).
    private var tails = HashMap64<(parent: [UInt8], last: [UInt8])>()
    /// `hasTail[n]`: some node in `tails` has a data key of `n` bytes (the ancestors of a
    /// written key at other lengths are not looked up).
    private var hasTail: [Bool] = []

    var count: Int { shapes.count }

    /// Listings triggers read and locations rules read, kept exact with the shapes (`apply`,
    /// `removeAll`).
    let reads = RememberedReads()

    /// The keys under the node at `dataKey` as the writer last wrote them, or nil when unknown.
    func keys(at dataKey: [UInt8]) -> [[UInt8]]? {
        shape(at: dataKey, hash: Self.hash(dataKey))?.allKeys(dataKey: dataKey)
    }

    /// The value of the leaf at `dataKey` when the writer remembers putting a leaf without
    /// priority there (nil: not known to be such a leaf; it may be anything).
    func rememberedLeaf(at dataKey: [UInt8]) -> LeafValue? {
        shape(at: dataKey, hash: Self.hash(dataKey))?.leaf
    }

    /// What the writer last put under the node at `dataKey` (its `hash`), or nil when unknown.
    func shape(at dataKey: [UInt8], hash: UInt64) -> Shape? {
        guard !shapes.isEmpty else { return nil }
        return shapes.lend(hash) { KeyBytes.equal($0.dataKey, dataKey) ? $0.shape : nil } ?? nil
    }

    /// True when the writer remembers putting a leaf without priority at `dataKey` (`hash`).
    func hasLeaf(at dataKey: [UInt8], hash: UInt64) -> Bool {
        guard !shapes.isEmpty else { return false }
        return shapes.lend(hash) { $0.shape.isLeaf && KeyBytes.equal($0.dataKey, dataKey) } ?? false
    }

    /// True when the writer remembers what it put at `dataKey` (`hash`).
    @inline(__always)
    private func remembers(_ dataKey: [UInt8], hash: UInt64) -> Bool {
        guard !shapes.isEmpty else { return false }
        return shapes.lend(hash) { KeyBytes.equal($0.dataKey, dataKey) } ?? false
    }

    /// Where the parent of the node at `dataKey` lies in it: the hash and length of its data
    /// key (nil: `dataKey` is not a data key below the root). What the writer knows of the
    /// parent (`noLeafAbove`, `isPastTail`) is looked up by it.
    static func parent(of dataKey: [UInt8]) -> (hash: UInt64, length: Int)? {
        var parent: (hash: UInt64, length: Int)?
        guard forEachAncestor(of: dataKey, { parent = ($0, $1) }) != nil else { return nil }
        return parent
    }

    /// True when the writer knows nothing is stored at or under `dataKey`: its parent (at
    /// `parent`, `SubtreeShapes.parent(of:)`) has a last child that sorts before it (`tails`).
    func isPastTail(_ dataKey: [UInt8], parent: (hash: UInt64, length: Int)?) -> Bool {
        guard !tails.isEmpty, let parent else { return false }
        // Children of one node: their segments are prefix-free, so a child that sorts after
        // `last` sorts after all of `last`'s subtree, and so does all of its own.
        return tails.lend(parent.hash) { tail in
            tail.parent.count == parent.length && KeyBytes.hasPrefix(dataKey, tail.parent)
                && KeyBytes.precedes(tail.last, dataKey)
        } ?? false
    }

    /// `isPastTail(_:parent:)`, the parent found from `dataKey`.
    func isPastTail(_ dataKey: [UInt8]) -> Bool {
        !tails.isEmpty && isPastTail(dataKey, parent: Self.parent(of: dataKey))
    }

    /// True when neither the parent of the node at `dataKey` (at `parent`,
    /// `SubtreeShapes.parent(of:)`) nor any ancestor of it is a leaf, as far as the writer knows
    /// (false: unknown). Then a write there turns no leaf into an object, and the planner skips
    /// the seek that would find out.
    func noLeafAbove(_ dataKey: [UInt8], parent: (hash: UInt64, length: Int)?) -> Bool {
        guard !objects.isEmpty, let parent else { return false }
        return objects.lend(parent.hash) { $0.count == parent.length && KeyBytes.hasPrefix(dataKey, $0) } ?? false
    }

    /// Applies a commit: forgets every node it may have changed and remembers the new shapes.
    /// Remembered nodes never contain one another (remembering one forgets those above and
    /// below it), so a location that is remembered itself has nothing remembered around it.
    /// The locations of one write do not contain one another either, except a priority and
    /// the children of its owner, for which the order only decides what is forgotten.
    /// - Parameter change: taken (its recorded shapes are moved into the memory, not copied).
    func apply(_ change: consuming Change) {
        if !reads.isEmpty { reads.forget(touchedBy: change.written, hashes: change.hashes) }
        // Learned before the walks below, which move them on past this change's other writes.
        for child in change.tails { learnTail(child) }
        let hasRecorded = !change.recorded.isEmpty
        for index in change.written.indices {
            let hash = change.hashes[index]
            let recorded = hasRecorded ? change.recorded[index].take() : nil
            if remembers(change.written[index], hash: hash) {
                // Written again (a hot counter): changed in place.
                if let recorded {
                    shapes.modify(hash) { $0.shape = recorded }
                } else {
                    shapes[hash] = nil
                }
                continue
            }
            let written = change.written[index]
            if !shapes.isEmpty || !objects.isEmpty || !tails.isEmpty { forget(relatedTo: written, hash: hash) }
            guard recorded != nil || change.present[index] else { continue }
            if shapes.count >= Self.capacity || objects.count >= Self.capacity || tails.count >= Self.capacity {
                removeAll()
            }
            var parent: (hash: UInt64, length: Int)?
            let parsed = Self.forEachAncestor(of: written) { ancestor, length in
                ancestors.insert(ancestor)
                parent = (ancestor, length)
                if length < hasTail.count, hasTail[length] { moveTail(of: ancestor, length: length, past: written) }
            }
            guard parsed != nil else { continue }
            if let recorded { shapes[hash] = (written, recorded) }
            if let parent, !objects.contains(parent.hash) { objects[parent.hash] = Array(written[0..<parent.length]) }
        }
    }

    /// `child`'s parent has nothing stored after it: remembered, unless a later child is.
    private func learnTail(_ child: [UInt8]) {
        var parent: (hash: UInt64, length: Int)?
        let parsed = Self.forEachAncestor(of: child) { ancestor, length in
            ancestors.insert(ancestor)
            parent = (ancestor, length)
        }
        guard parsed != nil, let parent else { return }
        if let tail = tails[parent.hash] {
            guard tail.parent.count == parent.length, KeyBytes.hasPrefix(child, tail.parent) else {
                // Two nodes with one hash: neither is known.
                tails[parent.hash] = nil
                return
            }
            if KeyBytes.precedes(tail.last, child) { tails.modify(parent.hash) { $0.last = child } }
            return
        }
        tails[parent.hash] = (Array(child[0..<parent.length]), child)
        if parent.length >= hasTail.count {
            hasTail += Array(repeating: false, count: parent.length + 1 - hasTail.count)
        }
        hasTail[parent.length] = true
    }

    /// A write leaves data at `written`, below the node of `length` bytes and `hash`: when that
    /// node's end is known and `written` lies after it, `written`'s child of the node is the
    /// new end.
    private func moveTail(of hash: UInt64, length: Int, past written: [UInt8]) {
        let below = tails.lend(hash) { $0.parent.count == length && KeyBytes.hasPrefix(written, $0.parent) } ?? false
        guard below else { return }
        guard let end = written.withUnsafeBytes({ KeyEncoding.segmentEnd($0, from: length) }) else {
            tails[hash] = nil
            return
        }
        let child = Array(written[0..<end])
        if tails.lend(hash, { KeyBytes.precedes($0.last, child) }) == true { tails.modify(hash) { $0.last = child } }
    }

    func removeAll() {
        tails.removeAll()
        hasTail.removeAll(keepingCapacity: true)
        reads.removeAll()
        shapes.removeAll()
        ancestors.removeAll()
        objects.removeAll()
    }

    /// Forgets the nodes above and below `written` (which is not remembered itself).
    private func forget(relatedTo written: [UInt8], hash: UInt64) {
        if ancestors.contains(hash) {
            // Remembered nodes may lie below the written one.
            removeAll()
            return
        }
        let parsed = Self.forEachAncestor(of: written) { ancestor, length in
            let above =
                shapes.lend(ancestor) { $0.dataKey.count == length && KeyBytes.hasPrefix(written, $0.dataKey) } ?? false
            guard above else { return }
            shapes[ancestor] = nil
        }
        if parsed == nil { removeAll() }
    }

    /// Calls `body` with the hash and length of every proper prefix of `key` that is a node's
    /// data key: the namespace root, then one per segment but the last. Returns the hash of the
    /// whole key (`hash(key)`), or nil when `key` does not parse as a data key (nothing to rely
    /// on then).
    @discardableResult
    static func forEachAncestor(of key: [UInt8], _ body: (UInt64, Int) -> Void) -> UInt64? {
        guard key.count >= namespacePrefixLength else { return nil }
        return key.withUnsafeBytes { bytes in
            var hash = offsetBasis
            for i in 0..<namespacePrefixLength { hash = (hash ^ UInt64(bytes[i])) &* prime }
            var offset = namespacePrefixLength
            while offset < bytes.count {
                body(hash, offset)
                guard let end = KeyEncoding.segmentEnd(bytes, from: offset) else { return nil }
                for i in offset..<end { hash = (hash ^ UInt64(bytes[i])) &* prime }
                offset = end
            }
            return hash
        }
    }

    private static let offsetBasis: UInt64 = 0xcbf2_9ce4_8422_2325
    private static let prime: UInt64 = 0x100_0000_01b3

    /// The hash of each of `keys`; `prefix`, a key many of them start with (an update's
    /// location), is hashed once and continued over the rest of each such key.
    static func hashes(of keys: [[UInt8]], sharing prefix: [UInt8]) -> [UInt64] {
        let prefixHash = hash(prefix)
        return keys.map { key in
            KeyBytes.hasPrefix(key, prefix) ? hash(key, from: prefix.count, continuing: prefixHash) : hash(key)
        }
    }

    /// FNV-1a of the whole key (the same value `forEachAncestor` reaches at that length).
    static func hash(_ key: [UInt8]) -> UInt64 {
        hash(key, from: 0, continuing: offsetBasis)
    }

    /// The hash of `key` given `hash`, that of its first `start` bytes.
    static func hash(_ key: [UInt8], from start: Int, continuing hash: UInt64) -> UInt64 {
        key.withUnsafeBytes { self.hash(UnsafeRawBufferPointer(rebasing: $0[start...]), continuing: hash) }
    }

    /// FNV-1a of bytes that live elsewhere, continuing `hash` (that of the bytes before them).
    static func hash(_ bytes: UnsafeRawBufferPointer, continuing hash: UInt64 = offsetBasis) -> UInt64 {
        var hash = hash
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* prime }
        return hash
    }
}
