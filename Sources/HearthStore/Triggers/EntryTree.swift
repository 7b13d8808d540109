import HearthCore

/// The paths of a `WriteOverlay`'s entries as a tree of keys: which entry lies at or above a
/// path, and whether any lies below it, in one step per key (no whole path hashed, nothing
/// scanned). A value: a copy of the overlay keeps its own.
struct EntryTree {
    /// The index of the entry at this node.
    private var entry: Int?
    /// How many entries lie strictly below this node.
    private var below = 0
    private var children: [ChildKey: EntryTree] = [:]

    /// The index of the entry at `keys` or above it.
    func covering(_ keys: ArraySlice<ChildKey>) -> Int? {
        if let entry { return entry }
        guard let key = keys.first, let child = children[key] else { return nil }
        return child.covering(keys.dropFirst())
    }

    /// True when an entry lies strictly below `keys`.
    func hasEntries(below keys: ArraySlice<ChildKey>) -> Bool {
        guard let key = keys.first else { return below > 0 }
        return children[key]?.hasEntries(below: keys.dropFirst()) ?? false
    }

    /// Records entry `index` at `keys` (no entry lies at, above or below it).
    mutating func insert(_ keys: ArraySlice<ChildKey>, index: Int) {
        guard let key = keys.first else {
            entry = index
            return
        }
        below += 1
        children[key, default: EntryTree()].insert(keys.dropFirst(), index: index)
    }
}
