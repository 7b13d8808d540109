import Synchronization

/// The writes a `NamespaceWriter` has staged in the current round: one batch for all of them,
/// and the keys they touch, so a later write can tell whether it could have read them.
/// Touched only on the writer.
final class StagedWrites {
    /// Whether the group reached LevelDB; read by each staged write's completion.
    final class Outcome: Sendable {
        private let failure = Mutex<(any Error)?>(nil)

        /// Set (on the writer, before any completion runs) when applying the group failed.
        var error: (any Error)? {
            get { failure.withLock { $0 } }
            set { failure.withLock { $0 = newValue } }
        }
    }

    /// A group holds at most this many writes and about this many bytes; a write that would
    /// pass either limit is applied on its own after the group.
    static let maxWrites = 64
    static let maxBytes = 1 << 20
    /// A group of at least this many puts and deletes is large (`RoundsOfOne`): a 100-member
    /// chat message is ~300, a small put 2.
    static let largeGroupOperations = 256

    /// The first staged write's own batch (not a copy), the others' appended to it.
    private(set) var batch = WriteBatch()
    let outcome = Outcome()
    /// The writer's sequence number and announced commits before the first staged write.
    let sequenceBefore: UInt64
    let announcedBefore: Int
    /// The keys the staged writes touch, indexed: built from `touchedLists` only when a later
    /// write asks, so a group of one write (the last of a round, or a round of one long job)
    /// indexes none.
    private var touched = TouchedKeys()
    /// The keys (and their known hashes) each staged write touches, in order, as it handed
    /// them over; those from `listsTouched` on are not in `touched` yet.
    private var touchedLists: [(keys: [[UInt8]], hashes: [UInt64])] = []
    private var listsTouched = 0
    /// The indexed values each staged write changed (`IndexMaintenance`), in order, as it
    /// handed them over: taken into `indexedValues` only when a later write asks for one, so
    /// a group no write asks (one write, or writes of other nodes' indexes) hashes none.
    private var indexedLists: [[(key: [UInt8], value: [UInt8]?)]] = []
    /// How many of `indexedLists` are in `indexedValues`.
    private var listsTakenIn = 0
    /// The indexed values the staged writes changed, by entry identity (`IndexMaintenance`):
    /// the encoded value, or nil for a child removed. Memory only: nothing of it is stored.
    private var indexedValues: [StoredKey: [UInt8]?] = [:]
    private var writes = 0
    /// Whether a write joined that puts a key an earlier one put (a hot counter written again
    /// from the writer's memory): the batch then has keys to drop before it is applied.
    private var rewritesKeys = false

    init(sequenceBefore: UInt64, announcedBefore: Int) {
        self.sequenceBefore = sequenceBefore
        self.announcedBefore = announcedBefore
    }

    /// Whether a write may join the group.
    enum Admission {
        case refused
        /// It may; `rewritesKeys`: it writes a location a staged write wrote.
        case admitted(rewritesKeys: Bool)
    }

    /// Whether a write touching `keys` with `batch` may join: the group has room, and no
    /// staged location contains one of `keys` or lies inside it, except the very same
    /// location when the write planned it from the writer's memory (`fromMemory(i)` for
    /// `keys[i]`), which the staged writes keep up to date. `hashes`: `SubtreeShapes.hash` of
    /// the first of `keys`, when known.
    func admission(
        of keys: [[UInt8]],
        hashes: [UInt64] = [],
        fromMemory: (Int) -> Bool,
        batch: WriteBatch
    ) -> Admission {
        guard writes < Self.maxWrites, self.batch.byteSize + batch.byteSize <= Self.maxBytes,
            let rewrites = rewrites(keys, hashes: hashes, fromMemory: fromMemory)
        else { return .refused }
        return .admitted(rewritesKeys: rewrites)
    }

    /// True when a staged location contains or lies inside one of `keys`, other than the same
    /// location for a key with `fromMemory`.
    func conflicts(_ keys: [[UInt8]], fromMemory: (Int) -> Bool = { _ in false }) -> Bool {
        rewrites(keys, fromMemory: fromMemory) == nil
    }

    /// Whether `keys` write a staged location again (each such key `fromMemory`); nil when one
    /// conflicts (a staged location contains or lies inside it, or is it without `fromMemory`).
    private func rewrites(_ keys: [[UInt8]], hashes: [UInt64] = [], fromMemory: (Int) -> Bool) -> Bool? {
        takeInTouched()
        var rewrites = false
        var conflicts = false
        touched.forEachRelation(of: keys, hashes: hashes) { index, relation in
            switch relation {
            case .none: return true
            case .same:
                guard fromMemory(index) else {
                    conflicts = true
                    return false
                }
                rewrites = true
                return true
            case .nested:
                conflicts = true
                return false
            }
        }
        return conflicts ? nil : rewrites
    }

    /// True when a staged write could change the last child of the node at data key `parent`
    /// found to be the child whose encoded key segment is `segment` (see
    /// `TouchedKeys.touches(childrenOf:from:)`).
    func conflicts(lastChildOf parent: [UInt8], found segment: [UInt8]?) -> Bool {
        takeInTouched()
        return touched.touches(childrenOf: parent, from: segment)
    }

    /// What the staged writes do to the children of the node at data key `parent` after the
    /// child whose encoded segment is `segment` (see `TouchedKeys.laterChildren(of:after:)`).
    func laterChildren(of parent: [UInt8], after segment: [UInt8]) -> TouchedKeys.LaterChildren {
        takeInTouched()
        return touched.laterChildren(of: parent, after: segment)
    }

    /// Indexes the touched keys handed over since the last time, in order.
    private func takeInTouched() {
        guard listsTouched < touchedLists.count else { return }
        for (keys, hashes) in touchedLists[listsTouched...] {
            for (index, key) in keys.enumerated() {
                touched.insert(key, hash: index < hashes.count ? hashes[index] : nil)
            }
        }
        listsTouched = touchedLists.count
    }

    /// The indexed value at entry identity `key` as the staged writes left it: nil when none
    /// changed it, `.some(nil)` when one removed the child.
    func indexedValue(_ key: [UInt8]) -> [UInt8]?? {
        if listsTakenIn < indexedLists.count { takeInIndexedValues() }
        return indexedValues.isEmpty ? nil : indexedValues[StoredKey(key)]
    }

    /// Brings `indexedValues` up to date with the lists handed over since, in order (a later
    /// write's value wins), in a table sized for them at once.
    private func takeInIndexedValues() {
        let lists = indexedLists[listsTakenIn...]
        indexedValues.reserveCapacity(indexedValues.count + lists.reduce(0) { $0 + $1.count })
        for list in lists {
            for entry in list { indexedValues[StoredKey(entry.key)] = .some(entry.value) }
        }
        listsTakenIn = indexedLists.count
    }

    /// - Parameter batch: the write's batch, the group's from now on (its owner drops it).
    /// - Parameter rewritesKeys: as its admission said (false for the first write).
    /// - Parameter indexedValues: the indexed values it changed, in order.
    func add(
        _ batch: WriteBatch,
        touching keys: [[UInt8]],
        hashes: [UInt64] = [],
        rewritesKeys: Bool = false,
        indexedValues written: [(key: [UInt8], value: [UInt8]?)] = []
    ) {
        if writes == 0 { self.batch = batch } else { self.batch.append(batch) }
        touchedLists.append((keys, hashes))
        if !written.isEmpty { indexedLists.append(written) }
        self.rewritesKeys = self.rewritesKeys || rewritesKeys
        writes += 1
    }

    /// Drops every put or delete of a key that a later one in the batch overrides: LevelDB
    /// would insert each into its memtable (and a reader at a later snapshot only ever sees
    /// the last), so a hot counter written by every staged write costs one insert, not one per
    /// write.
    func dropOverriddenKeys() {
        guard rewritesKeys, let compacted = batch.keepingLastWriteOfEachKey() else { return }
        batch = compacted
        rewritesKeys = false
    }
}
