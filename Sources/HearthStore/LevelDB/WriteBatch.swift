import CLevelDB

/// A LevelDB write batch: every put and delete in it is applied atomically.
final class WriteBatch {
    let handle: OpaquePointer
    private(set) var count = 0
    private(set) var byteSize = 0
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

    init() {
        handle = leveldb_writebatch_create()
    }

    deinit {
        leveldb_writebatch_destroy(handle)
    }

    func put(_ key: [UInt8], _ value: [UInt8]) {
        key.withUnsafeBufferPointer { k in
            value.withUnsafeBufferPointer { v in
                k.withMemoryRebound(to: CChar.self) { kc in
                    v.withMemoryRebound(to: CChar.self) { vc in
                        leveldb_writebatch_put(handle, kc.baseAddress, kc.count, vc.baseAddress, vc.count)
                    }
                }
            }
        }
        count += 1
        byteSize += key.count + value.count + 8
    }

    /// Puts bytes that live elsewhere (another batch's, while it is unchanged).
    func put(_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) {
        leveldb_writebatch_put(
            handle,
            key.baseAddress?.assumingMemoryBound(to: CChar.self),
            key.count,
            value.baseAddress?.assumingMemoryBound(to: CChar.self),
            value.count
        )
        count += 1
        byteSize += key.count + value.count + 8
    }

    func delete(_ key: UnsafeRawBufferPointer) {
        leveldb_writebatch_delete(handle, key.baseAddress?.assumingMemoryBound(to: CChar.self), key.count)
        count += 1
        byteSize += key.count + 8
    }

    /// Takes the ranges `other` cleared and deleted, to compact after this batch is applied.
    func inheritRanges(of other: WriteBatch) {
        clearedRanges += other.clearedRanges
        deletedRanges += other.deletedRanges
    }

    func delete(_ key: [UInt8]) {
        key.withUnsafeBufferPointer { k in
            k.withMemoryRebound(to: CChar.self) { kc in
                leveldb_writebatch_delete(handle, kc.baseAddress, kc.count)
            }
        }
        count += 1
        byteSize += key.count + 8
    }

    /// Adds every put and delete of `other` after this batch's own (`other` is unchanged).
    func append(_ other: WriteBatch) {
        leveldb_writebatch_append(handle, other.handle)
        count += other.count
        byteSize += other.byteSize
        clearedRanges += other.clearedRanges
        deletedRanges += other.deletedRanges
    }

    func clear() {
        leveldb_writebatch_clear(handle)
        count = 0
        byteSize = 0
        clearedRanges = []
        deletedRanges = []
    }
}
