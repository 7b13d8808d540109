import HearthCore

/// Where a write lands, worked out before it reaches the namespace's writer: its located
/// entries (data keys encoded once), checked not to contain one another and put in the byte
/// order of their keys, and the hashes the writer's `SubtreeShapes` looks them up by.
///
/// A pure function of the write and the key space, so for a large write the caller's thread
/// computes it and the serial writer, which every write of the namespace waits for, does not:
/// for a chat message with its members' counters that is hundreds of keys. A small write's are
/// worked out on the writer (cheaper than the hand-over). Nothing here reads the store.
struct WriteLocations: Sendable {
    /// Writes with more locations than this have them worked out on the caller's thread.
    static let workedOutBeforeTheWriter = 8

    let located: LocatedEntries
    /// The entries' indexes in the byte order of their keys (the order the planner puts them in).
    let order: [Int]
    /// `SubtreeShapes.hash` of each entry's data key.
    let hashes: [UInt64]

    init(located: LocatedEntries, order: [Int], hashes: [UInt64]) {
        self.located = located
        self.order = order
        self.hashes = hashes
    }

    /// - Throws: `StoreError` (`.invalidWrite`) when an update's paths contain one another.
    init(of write: Write, keys: KeySpace) throws {
        switch write.operation {
        case .set(let path, _):
            located = LocatedEntries(base: .root, relatives: [path], keys: keys)
            order = [0]
        case .update(let path, let entries):
            located = LocatedEntries(base: path, relatives: entries.map(\.path), keys: keys)
            order = try located.checkDisjoint()
        }
        hashes = SubtreeShapes.hashes(of: located.dataKeys, sharing: located.baseKey)
    }
}
