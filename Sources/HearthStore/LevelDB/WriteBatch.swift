import CLevelDB
import Glibc
import HearthCore

/// A LevelDB write batch: every put and delete in it is applied atomically.
///
/// The puts and deletes are kept in Swift and handed to LevelDB only when the batch is written
/// (`withHandle`): a round's staged writes append their batches to one group's, which drops each
/// hot key's earlier writes before it is written, so a key is copied into LevelDB's own batch
/// once, not once per write and again for the group.
///
/// Keys and values sit back to back in one buffer, as in LevelDB's own batch, with one small
/// entry per operation: a put copies its bytes in and keeps no reference to the caller's
/// arrays. (Holding each put's arrays instead cost a big PUT one heap allocation per leaf, kept
/// to the end of the round, and made the planner's shared key buffer copy itself per leaf.)
final class WriteBatch {
    /// Every key and value, in the order they were put.
    private var bytes: [UInt8] = []
    private var entries: [Entry] = []

    /// One put or delete: its key at `start`, its value (none for a delete) right after it.
    private struct Entry {
        var start: Int
        var keyCount: Int
        /// -1 for a delete.
        var valueCount: Int
        /// The key's FNV-1a hash (`SubtreeShapes.hash`) when the writer knew it, else 0.
        var hash: UInt64
    }

    var count: Int { entries.count }
    /// The bytes of every key and value, plus 8 per operation.
    var byteSize: Int { bytes.count + 8 * entries.count }
    /// Key ranges (as prefixes) this batch cleared in bulk; compacted after commit so that
    /// later seeks do not step over their tombstones one by one.
    private(set) var clearedRanges: [[UInt8]] = []
    /// Key ranges (as prefixes) this batch deleted, however few keys: compacted a little later,
    /// at most a few times a second (see `LevelDB.compactSoon`).
    private(set) var deletedRanges: [[UInt8]] = []

    /// A prefix whose keys this batch deleted in bulk is compacted once at least this many went.
    static let compactionThreshold = 5_000

    func noteCleared(prefix: [UInt8], deletedKeys: Int) {
        if deletedKeys >= WriteBatch.compactionThreshold { clearedRanges.append(prefix) }
    }

    /// Notes a node deleted at `prefix` (a delete, not a replacement).
    func noteDeleted(prefix: [UInt8]) {
        deletedRanges.append(prefix)
    }

    /// True when the batch may put or delete kept-list markers (`KeySpace.keptListKey`): the
    /// writer forgets what it remembers of them once the batch is applied (`KeptLists`).
    private(set) var changesKeptLists = false

    func noteKeptListsChanged() {
        changesKeptLists = true
    }

    init() {}

    /// Makes room for `operations` more puts or deletes holding about `bytes` more bytes, so a
    /// batch of hundreds of keys grows its buffers once instead of doubling them along the way.
    func reserve(operations: Int, bytes count: Int) {
        entries.reserveCapacity(entries.count + operations)
        bytes.reserveCapacity(bytes.count + count)
    }

    /// - Parameter hash: `SubtreeShapes.hash(key)` when known (0: not known).
    func put(_ key: [UInt8], _ value: [UInt8], hash: UInt64 = 0) {
        key.withUnsafeBytes { key in value.withUnsafeBytes { add(key, $0, hash: hash) } }
    }

    /// Puts `value` encoded (`ValueEncoding`) at `key`: a number or a boolean without a buffer
    /// of its own.
    func put(_ key: [UInt8], encoding value: LeafValue, hash: UInt64 = 0) {
        key.withUnsafeBytes { key in ValueEncoding.withEncoded(value) { add(key, $0, hash: hash) } }
    }

    /// Puts a copy of bytes that live elsewhere.
    func put(_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) {
        add(key, value, hash: 0)
    }

    func delete(_ key: [UInt8]) {
        key.withUnsafeBytes { add($0, nil, hash: 0) }
    }

    func delete(_ key: UnsafeRawBufferPointer) {
        add(key, nil, hash: 0)
    }

    /// Copies `key` and `value` (nil: a delete) to the end of the buffer, with their entry.
    /// From raw bytes: appending an array retained and released it, for each of a chat
    /// message's hundreds of keys and values.
    private func add(_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer?, hash: UInt64) {
        entries.append(Entry(start: bytes.count, keyCount: key.count, valueCount: value?.count ?? -1, hash: hash))
        bytes.append(contentsOf: key)
        if let value { bytes.append(contentsOf: value) }
    }

    /// Takes the ranges `other` cleared and deleted, to compact after this batch is applied.
    func inheritRanges(of other: WriteBatch) {
        clearedRanges += other.clearedRanges
        deletedRanges += other.deletedRanges
        if other.changesKeptLists { changesKeptLists = true }
    }

    /// Adds every put and delete of `other` after this batch's own (`other` is unchanged).
    func append(_ other: WriteBatch) {
        let shift = bytes.count
        bytes += other.bytes
        entries.reserveCapacity(entries.count + other.entries.count)
        for var entry in other.entries {
            entry.start += shift
            entries.append(entry)
        }
        inheritRanges(of: other)
    }

    /// A copy of the puts and deletes (nil value: a delete), in order, for inspection.
    var operations: [(key: [UInt8], value: [UInt8]?)] {
        entries.map { entry in
            let key = Array(bytes[entry.start..<entry.start + entry.keyCount])
            guard entry.valueCount >= 0 else { return (key, nil) }
            let valueStart = entry.start + entry.keyCount
            return (key, Array(bytes[valueStart..<valueStart + entry.valueCount]))
        }
    }

    /// Calls `body` with each operation's key and value (nil: a delete), in order, without
    /// copying them; the buffers are valid only during the call.
    func forEachOperation(_ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer?) throws -> Void) rethrows {
        try bytes.withUnsafeBytes { all in
            for entry in entries {
                let key = UnsafeRawBufferPointer(rebasing: all[entry.start..<entry.start + entry.keyCount])
                guard entry.valueCount >= 0 else {
                    try body(key, nil)
                    continue
                }
                let valueStart = entry.start + entry.keyCount
                try body(key, UnsafeRawBufferPointer(rebasing: all[valueStart..<valueStart + entry.valueCount]))
            }
        }
    }

    /// The hash of each operation's key (the one it was put with, else computed), in order.
    func keyHashes() -> [UInt64] {
        bytes.withUnsafeBytes { all in
            entries.map { entry in
                guard entry.hash == 0 else { return entry.hash }
                let key = UnsafeRawBufferPointer(rebasing: all[entry.start..<entry.start + entry.keyCount])
                return SubtreeShapes.hash(key)
            }
        }
    }

    /// True when operations `a` and `b` have the same key.
    func sameKey(_ a: Int, _ b: Int) -> Bool {
        let first = entries[a]
        let second = entries[b]
        guard first.keyCount == second.keyCount else { return false }
        guard first.keyCount > 0 else { return true }
        return bytes.withUnsafeBytes { all in
            memcmp(all.baseAddress! + first.start, all.baseAddress! + second.start, first.keyCount) == 0
        }
    }

    /// A batch of the operations at `indexes` (ascending), in that order, with no ranges.
    func keeping(_ indexes: [Int]) -> WriteBatch {
        let kept = WriteBatch()
        kept.entries.reserveCapacity(indexes.count)
        for index in indexes {
            var entry = entries[index]
            let length = entry.keyCount + max(entry.valueCount, 0)
            let start = kept.bytes.count
            kept.bytes.append(contentsOf: bytes[entry.start..<entry.start + length])
            entry.start = start
            kept.entries.append(entry)
        }
        return kept
    }

    /// Runs `body` with LevelDB's batch of these puts and deletes.
    func withHandle<Result>(_ body: (OpaquePointer) throws -> Result) rethrows -> Result {
        let handle = leveldb_writebatch_create()!
        defer { leveldb_writebatch_destroy(handle) }
        // An empty buffer may have no address; then every key and value is empty.
        let bytes = self.bytes.isEmpty ? [0] : self.bytes
        bytes.withUnsafeBytes { all in
            let base = all.baseAddress!.assumingMemoryBound(to: CChar.self)
            for entry in entries {
                let key = base + entry.start
                if entry.valueCount >= 0 {
                    leveldb_writebatch_put(handle, key, entry.keyCount, key + entry.keyCount, entry.valueCount)
                } else {
                    leveldb_writebatch_delete(handle, key, entry.keyCount)
                }
            }
        }
        return try body(handle)
    }

    func clear() {
        bytes = []
        entries = []
        clearedRanges = []
        deletedRanges = []
    }
}
