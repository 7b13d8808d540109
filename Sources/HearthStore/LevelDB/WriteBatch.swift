import CLevelDB

/// A LevelDB write batch: every put and delete in it is applied atomically.
///
/// The puts and deletes are kept as Swift arrays and handed to LevelDB only when the batch is
/// written (`withHandle`): a round's staged writes append their batches to one group's, which
/// drops each hot key's earlier writes before it is written, so a key is copied into LevelDB's
/// own batch once, not once per write and again for the group.
final class WriteBatch {
    /// The puts (a value) and deletes (nil), in order; `hash`: the key's FNV-1a hash
    /// (`SubtreeShapes.hash`) when the writer knew it, else 0.
    private(set) var operations: [Operation] = []
    typealias Operation = (key: [UInt8], value: [UInt8]?, hash: UInt64)
    var count: Int { operations.count }
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

    init() {}

    /// - Parameter hash: `SubtreeShapes.hash(key)` when known (0: not known).
    func put(_ key: [UInt8], _ value: [UInt8], hash: UInt64 = 0) {
        operations.append((key, value, hash))
        byteSize += key.count + value.count + 8
    }

    /// Puts a copy of bytes that live elsewhere.
    func put(_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) {
        put(Array(key), Array(value))
    }

    func delete(_ key: UnsafeRawBufferPointer) {
        delete(Array(key))
    }

    /// Takes the ranges `other` cleared and deleted, to compact after this batch is applied.
    func inheritRanges(of other: WriteBatch) {
        clearedRanges += other.clearedRanges
        deletedRanges += other.deletedRanges
    }

    func delete(_ key: [UInt8]) {
        operations.append((key, nil, 0))
        byteSize += key.count + 8
    }

    /// Adds every put and delete of `other` after this batch's own (`other` is unchanged).
    func append(_ other: WriteBatch) {
        operations += other.operations
        byteSize += other.byteSize
        clearedRanges += other.clearedRanges
        deletedRanges += other.deletedRanges
    }

    /// Replaces the puts and deletes (with the same effect, fewer of them).
    func replaceOperations(_ kept: [Operation]) {
        operations = kept
        byteSize = kept.reduce(0) { $0 + $1.key.count + ($1.value?.count ?? 0) + 8 }
    }

    /// Runs `body` with LevelDB's batch of these puts and deletes.
    func withHandle<Result>(_ body: (OpaquePointer) throws -> Result) rethrows -> Result {
        let handle = leveldb_writebatch_create()!
        defer { leveldb_writebatch_destroy(handle) }
        for operation in operations {
            operation.key.withUnsafeBufferPointer { key in
                let keyBytes = UnsafeRawPointer(key.baseAddress)?.assumingMemoryBound(to: CChar.self)
                if let value = operation.value {
                    value.withUnsafeBufferPointer { value in
                        let valueBytes = UnsafeRawPointer(value.baseAddress)?.assumingMemoryBound(to: CChar.self)
                        leveldb_writebatch_put(handle, keyBytes, key.count, valueBytes, value.count)
                    }
                } else {
                    leveldb_writebatch_delete(handle, keyBytes, key.count)
                }
            }
        }
        return try body(handle)
    }

    func clear() {
        operations = []
        byteSize = 0
        clearedRanges = []
        deletedRanges = []
    }
}
