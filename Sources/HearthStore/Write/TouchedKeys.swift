/// The keys a round's staged writes touch, indexed so that a later write's keys are checked in
/// time proportional to their own: each data key by its hash, and the hashes of its ancestors
/// (every proper prefix ending a path segment, the namespace root included). The key encoding
/// is prefix-free by segment, so "one key is a byte prefix of the other" is exactly "one
/// location contains the other", and that is a segment-boundary prefix.
///
/// A hash collision only ever answers "related" for unrelated keys (the write then waits for a
/// flush, as any overlapping one does), or "the same key" for unrelated keys (a write planned
/// from the writer's memory may then join, which is right for unrelated keys too); a real
/// relation is never missed.
struct TouchedKeys {
    /// How a key relates to the touched ones.
    enum Relation {
        /// No touched key contains it or lies inside it.
        case none
        /// Touched itself, and no touched key contains it or lies inside it.
        case same
        /// A touched key contains it or lies inside it.
        case nested
    }

    /// Hashes of the touched data keys.
    private var exact = HashSet64()
    /// Hashes of the proper ancestors of the touched data keys.
    private var ancestors = HashSet64(capacity: 256)
    /// Touched keys of other tables (lookup entries), compared byte by byte: none is a prefix
    /// of a data key or the other way round (the table tag differs), and they are few.
    private var others: [[UInt8]] = []
    /// The touched data keys in the order touched, for the rare checks that need their bytes
    /// (`touches(childrenOf:from:)`, `laterChildren(of:after:)`).
    private var dataKeys: [[UInt8]] = []

    /// True when a touched data key contains another (then `relation(of:hash:)` walks every
    /// key's ancestors). Staged writes never nest: a write whose keys nest with staged ones
    /// waits for a flush, and one write's locations are disjoint.
    private var nests = false
    /// The last two data keys inserted with a walk over their ancestors, and the length of each
    /// one's parent's key: a key beside either (the same parent, compared byte by byte) has the
    /// very same ancestors, all in already. None of them was touched itself since, or the key
    /// that touched it contains the walked one and found itself among the ancestors when it was
    /// inserted (`nests`, all a walk would have found). Two, because a write's keys in entry
    /// order alternate between parents (a chat member's entry fields, then their unread total).
    private var lastWalked: (key: [UInt8], parentLength: Int)?
    private var earlierWalked: (key: [UInt8], parentLength: Int)?

    /// - Parameter hash: `SubtreeShapes.hash(key)` when known: a key touched already (a hot
    ///   counter every staged write puts) is then found at once, its ancestors in already.
    mutating func insert(_ key: [UInt8], hash: UInt64? = nil) {
        guard Self.isDataKey(key) else {
            others.append(key)
            return
        }
        if let hash, exact.contains(hash) { return }
        if Self.lies(key, besideChildOf: lastWalked) || Self.lies(key, besideChildOf: earlierWalked) {
            // Written in key order, a write's counters come in runs of siblings.
            let full = hash ?? SubtreeShapes.hash(key)
            if ancestors.contains(full) { nests = true }
            exact.insert(full)
            dataKeys.append(key)
            return
        }
        var nested = false
        var parentLength = 0
        let full = SubtreeShapes.forEachAncestor(of: key) { hash, length in
            if !nested && exact.contains(hash) { nested = true }
            ancestors.insert(hash)
            parentLength = length
        }
        if let full {
            if nested || ancestors.contains(full) { nests = true }
            exact.insert(full)
            dataKeys.append(key)
            earlierWalked = lastWalked
            lastWalked = (key, parentLength)
        } else {
            others.append(key)
        }
    }

    /// True when data key `key` is a child of the parent of a walked key (nil: none).
    private static func lies(_ key: [UInt8], besideChildOf walked: (key: [UInt8], parentLength: Int)?) -> Bool {
        guard let walked else { return false }
        return lies(key, besideChildOf: walked.key, parentLength: walked.parentLength)
    }

    /// True when data key `key` is a child of the node whose data key is the first
    /// `parentLength` bytes of `other`.
    private static func lies(_ key: [UInt8], besideChildOf other: [UInt8], parentLength: Int) -> Bool {
        guard key.count > parentLength, KeyBytes.hasPrefix(key, other, length: parentLength) else { return false }
        return key.withUnsafeBytes { KeyEncoding.segmentEnd($0, from: parentLength) } == key.count
    }

    /// True when a touched key could change the last child of the node at data key `parent`
    /// that was found to be the one whose encoded segment is `segment` (nil: no child was
    /// found): a touched key at or above `parent`, or inside it in a child at `segment` or after
    /// it in key order. A touched child before it changes neither which child is last nor its
    /// subtree (a staged write never deletes), so the newest message of a chat stays the newest
    /// while earlier ones are staged.
    func touches(childrenOf parent: [UInt8], from segment: [UInt8]?) -> Bool {
        switch around(parent) {
        case .untouched: return false
        case .atOrAbove: return true
        case .inside:
            guard let segment else { return true }
            // The encoding is prefix-free by segment: the first byte that differs decides, and
            // a key whose rest starts with `segment` lies inside that very child.
            return dataKeys.contains { key in
                Self.lies(key, inside: parent) && !KeyBytes.precedes(key, from: parent.count, segment)
            }
        }
    }

    /// What touched keys do to the children of the node at data key `parent` after the child
    /// whose encoded segment is `segment`.
    enum LaterChildren {
        /// No touched key is at or above `parent`, nor inside it after `segment`.
        case untouched
        /// No touched key is at or above `parent`, and one lies inside it in a child after
        /// `segment` (not inside that child): the staged writes, which never delete, leave a
        /// child after it.
        case added
        /// A touched key is at or above `parent` (what it left there is not known here).
        case replaced
    }

    func laterChildren(of parent: [UInt8], after segment: [UInt8]) -> LaterChildren {
        switch around(parent) {
        case .untouched: return .untouched
        case .atOrAbove: return .replaced
        case .inside:
            let start = parent.count
            let added = dataKeys.contains { key in
                Self.lies(key, inside: parent) && !KeyBytes.precedes(key, from: start, segment)
                    && !KeyBytes.nested(key, from: start, segment)
            }
            return added ? .added : .untouched
        }
    }

    /// Where the touched keys lie around the node at data key `parent`.
    private enum Around {
        /// None at, above or inside it.
        case untouched
        /// One at or above it (for a key of another table: one related to it).
        case atOrAbove
        /// None at or above it, and one inside it.
        case inside
    }

    private func around(_ parent: [UInt8]) -> Around {
        guard Self.isDataKey(parent) else { return relationToOthers(parent) == .none ? .untouched : .atOrAbove }
        if exact.isEmpty { return .untouched }
        var above = false
        let full = SubtreeShapes.forEachAncestor(of: parent) { hash, _ in
            if !above && exact.contains(hash) { above = true }
        }
        guard let full else { return .atOrAbove }
        if above || exact.contains(full) { return .atOrAbove }
        return ancestors.contains(full) ? .inside : .untouched
    }

    private static func lies(_ key: [UInt8], inside parent: [UInt8]) -> Bool {
        key.count > parent.count && KeyBytes.hasPrefix(key, parent)
    }

    /// - Parameter hash: `SubtreeShapes.hash(key)` when known: a touched key is then the same
    ///   one at once while no touched keys nest (none of them can contain it or lie inside it).
    func relation(of key: [UInt8], hash: UInt64? = nil) -> Relation {
        var answer = Relation.none
        forEachRelation(of: [key], hashes: hash.map { [$0] } ?? []) { _, relation in
            answer = relation
            return false
        }
        return answer
    }

    /// `relation(of:hash:)` of each of `keys` in turn (`hashes[i]`: `SubtreeShapes.hash` of
    /// `keys[i]`, when known), handed to `body` until it returns false. A key beside one of the
    /// last two whose ancestors were walked and found untouched (a child of the same parent: a
    /// write's keys come in runs of siblings, or alternate between two parents) has the very
    /// same ancestors: its own hash decides.
    func forEachRelation(of keys: [[UInt8]], hashes: [UInt64], _ body: (Int, Relation) -> Bool) {
        // The last two keys whose ancestors were walked and found untouched, and their parents'
        // lengths (the touched keys do not change meanwhile).
        var clean: (key: [UInt8], parentLength: Int)?
        var earlierClean: (key: [UInt8], parentLength: Int)?
        for (index, key) in keys.enumerated() {
            let hash = index < hashes.count ? hashes[index] : nil
            let relation: Relation
            if !Self.isDataKey(key) || exact.isEmpty {
                relation = relationToOthers(key)
            } else if let hash, !nests, exact.contains(hash) {
                relation = .same
            } else if Self.lies(key, besideChildOf: clean) || Self.lies(key, besideChildOf: earlierClean) {
                let full = hash ?? SubtreeShapes.hash(key)
                relation = ancestors.contains(full) ? .nested : exact.contains(full) ? .same : .none
            } else {
                var contained = false
                var parentLength = 0
                let full = SubtreeShapes.forEachAncestor(of: key) { hash, length in
                    if !contained && exact.contains(hash) { contained = true }
                    parentLength = length
                }
                if let full {
                    relation = contained || ancestors.contains(full) ? .nested : exact.contains(full) ? .same : .none
                    if !contained {
                        earlierClean = clean
                        clean = (key, parentLength)
                    }
                } else {
                    relation = relationToOthers(key)
                    clean = nil
                }
            }
            guard body(index, relation) else { return }
        }
    }

    private func relationToOthers(_ key: [UInt8]) -> Relation {
        var relation = Relation.none
        for other in others {
            if KeyBytes.equal(key, other) {
                relation = .same
            } else if other.count <= key.count ? KeyBytes.hasPrefix(key, other) : KeyBytes.hasPrefix(other, key) {
                return .nested
            }
        }
        return relation
    }

    private static func isDataKey(_ key: [UInt8]) -> Bool {
        key.first == KeySpace.dataTable
    }
}
