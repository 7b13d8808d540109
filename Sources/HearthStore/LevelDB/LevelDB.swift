import CLevelDB
import Dispatch
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A thread-safe handle on one LevelDB database (the C API), with tracked snapshots so that
/// closing never frees the database under a reader.
final class LevelDB: Sendable {
    private struct State {
        var closed = false
        var activeReaders = 0
    }

    nonisolated(unsafe) private let db: OpaquePointer
    nonisolated(unsafe) private let options: OpaquePointer
    nonisolated(unsafe) private let cache: OpaquePointer
    nonisolated(unsafe) private let filter: OpaquePointer
    nonisolated(unsafe) private let syncWrite: OpaquePointer
    nonisolated(unsafe) private let asyncWrite: OpaquePointer
    private let state = Mutex(State())
    /// Prefixes waiting for `compactSoon`'s delayed compaction, and whether one is scheduled.
    private let deletedRanges = Mutex<(prefixes: [[UInt8]], scheduled: Bool)>(([], false))
    let path: String

    init(path: String, writeBufferSize: Int, cacheBytes: Int = 64 << 20) throws {
        self.path = path
        let options = leveldb_options_create()!
        leveldb_options_set_create_if_missing(options, 1)
        leveldb_options_set_write_buffer_size(options, writeBufferSize)
        leveldb_options_set_max_open_files(options, 1000)
        leveldb_options_set_max_file_size(options, 8 << 20)
        leveldb_options_set_compression(options, Int32(leveldb_snappy_compression))
        let cache = leveldb_cache_create_lru(cacheBytes)!
        leveldb_options_set_cache(options, cache)
        let filter = leveldb_filterpolicy_create_bloom(10)!
        leveldb_options_set_filter_policy(options, filter)
        var error: UnsafeMutablePointer<CChar>?
        let db = leveldb_open(options, path, &error)
        if let error {
            let message = String(cString: error)
            leveldb_free(error)
            leveldb_options_destroy(options)
            leveldb_cache_destroy(cache)
            leveldb_filterpolicy_destroy(filter)
            if message.contains("lock") {
                throw StoreError(
                    .locked,
                    "The data directory '\(path)' is in use by another Hearth process (\(message)); stop it or use its REST API."
                )
            }
            throw StoreError(.io, "Cannot open the data directory '\(path)': \(message)")
        }
        self.db = db!
        self.options = options
        self.cache = cache
        self.filter = filter
        syncWrite = leveldb_writeoptions_create()!
        leveldb_writeoptions_set_sync(syncWrite, 1)
        asyncWrite = leveldb_writeoptions_create()!
        leveldb_writeoptions_set_sync(asyncWrite, 0)
    }

    /// Applies `batch` atomically; with `sync`, only after the log is fsynced.
    func write(_ batch: WriteBatch, sync: Bool) throws {
        try withOpen { () throws in
            var error: UnsafeMutablePointer<CChar>?
            leveldb_write(db, sync ? syncWrite : asyncWrite, batch.handle, &error)
            if let error {
                let message = String(cString: error)
                leveldb_free(error)
                throw StoreError(.io, "Writing to the store failed: \(message)")
            }
        }
    }

    private static let compactionQueue = DispatchQueue(label: "hearth.compaction", qos: .utility)

    /// Compacts the key ranges under `prefixes` in the background, dropping the tombstones of
    /// bulk deletes (LevelDB's iterators otherwise step over each one on every seek).
    func compactInBackground(_ prefixes: [[UInt8]]) {
        guard !prefixes.isEmpty else { return }
        LevelDB.compactionQueue.async { [self] in
            for prefix in prefixes {
                try? withOpen { () throws in
                    let limit = KeyBytes.successor(of: prefix) ?? prefix
                    prefix.withUnsafeBufferPointer { start in
                        limit.withUnsafeBufferPointer { end in
                            start.withMemoryRebound(to: CChar.self) { s in
                                end.withMemoryRebound(to: CChar.self) { e in
                                    leveldb_compact_range(db, s.baseAddress, s.count, e.baseAddress, e.count)
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    /// At most this many prefixes wait for one delayed compaction (more are left to LevelDB).
    private static let maxDeletedRanges = 256
    /// How long deleted ranges wait, so that a burst of deletes is compacted once.
    private static let deletedRangesDelay = DispatchTimeInterval.milliseconds(300)

    /// Compacts the key ranges under `prefixes` a little later, together with the others noted
    /// meanwhile: one compaction per burst of deletes, however small each delete was.
    func compactSoon(_ prefixes: [[UInt8]]) {
        guard !prefixes.isEmpty else { return }
        let schedule = deletedRanges.withLock { state -> Bool in
            for prefix in prefixes where state.prefixes.count < Self.maxDeletedRanges {
                state.prefixes.append(prefix)
            }
            if state.scheduled { return false }
            state.scheduled = true
            return true
        }
        guard schedule else { return }
        LevelDB.compactionQueue.asyncAfter(deadline: .now() + Self.deletedRangesDelay) { [self] in
            let prefixes = deletedRanges.withLock { state -> [[UInt8]] in
                defer { state = ([], false) }
                return state.prefixes
            }
            compactInBackground(prefixes)
        }
    }

    /// LevelDB's estimate of the bytes the table files hold for each key range `[start, limit)`
    /// (what is only in the memtable and the log is not counted).
    func approximateSizes(_ ranges: [(start: [UInt8], limit: [UInt8])]) throws -> [UInt64] {
        try withOpen {
            var sizes = [UInt64](repeating: 0, count: ranges.count)
            for (index, range) in ranges.enumerated() {
                range.start.withUnsafeBufferPointer { start in
                    range.limit.withUnsafeBufferPointer { limit in
                        start.withMemoryRebound(to: CChar.self) { startChars in
                            limit.withMemoryRebound(to: CChar.self) { limitChars in
                                var startPointer: UnsafePointer<CChar>? = startChars.baseAddress
                                var limitPointer: UnsafePointer<CChar>? = limitChars.baseAddress
                                var startLength = startChars.count
                                var limitLength = limitChars.count
                                var size: UInt64 = 0
                                leveldb_approximate_sizes(
                                    db,
                                    1,
                                    &startPointer,
                                    &startLength,
                                    &limitPointer,
                                    &limitLength,
                                    &size
                                )
                                sizes[index] = size
                            }
                        }
                    }
                }
            }
            return sizes
        }
    }

    /// Forces the log to disk (a synced empty batch).
    func sync() throws {
        let batch = WriteBatch()
        try write(batch, sync: true)
    }

    /// Runs `body` with a consistent snapshot; the database stays open meanwhile.
    func withSnapshot<T>(_ body: (Snapshot) throws -> T) throws -> T {
        try enterReader()
        defer { leaveReader() }
        let snapshot = Snapshot(db: db)
        defer { snapshot.release() }
        return try body(snapshot)
    }

    /// A snapshot kept past one call (the writer's round snapshot); the database stays open
    /// until `releaseSnapshot` is called with it.
    func makeSnapshot() throws -> Snapshot {
        try enterReader()
        return Snapshot(db: db)
    }

    func releaseSnapshot(_ snapshot: Snapshot) {
        snapshot.release()
        leaveReader()
    }

    private func enterReader() throws {
        let ok = state.withLock { state -> Bool in
            if state.closed { return false }
            state.activeReaders += 1
            return true
        }
        if !ok { throw StoreError(.closed, "The store is closed.") }
    }

    private func leaveReader() {
        state.withLock { $0.activeReaders -= 1 }
    }

    func withOpen<T>(_ body: () throws -> T) throws -> T {
        try enterReader()
        defer { leaveReader() }
        return try body()
    }

    /// Closes the database after in-flight readers and writers finish.
    func close() {
        let first = state.withLock { state -> Bool in
            if state.closed { return false }
            state.closed = true
            return true
        }
        guard first else { return }
        while state.withLock({ $0.activeReaders }) > 0 {
            usleep(1000)
        }
        leveldb_close(db)
        leveldb_writeoptions_destroy(syncWrite)
        leveldb_writeoptions_destroy(asyncWrite)
        leveldb_options_destroy(options)
        leveldb_cache_destroy(cache)
        leveldb_filterpolicy_destroy(filter)
    }
}

/// A LevelDB snapshot plus read options bound to it; valid inside `LevelDB.withSnapshot`.
final class Snapshot {
    private let db: OpaquePointer
    private let snapshot: OpaquePointer
    let readOptions: OpaquePointer

    fileprivate init(db: OpaquePointer) {
        self.db = db
        snapshot = leveldb_create_snapshot(db)
        readOptions = leveldb_readoptions_create()
        leveldb_readoptions_set_snapshot(readOptions, snapshot)
        leveldb_readoptions_set_verify_checksums(readOptions, 0)
    }

    /// One iterator for callers that use it one at a time (the write planner), made on first use.
    private var shared: Cursor?

    func sharedCursor() -> Cursor {
        if let shared { return shared }
        let cursor = makeIterator()
        shared = cursor
        return cursor
    }

    fileprivate func release() {
        shared = nil
        leveldb_readoptions_destroy(readOptions)
        leveldb_release_snapshot(db, snapshot)
    }

    /// The value at `key`, or nil.
    func get(_ key: [UInt8]) -> [UInt8]? {
        var length = 0
        var error: UnsafeMutablePointer<CChar>?
        let value = key.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) {
                leveldb_get(db, readOptions, $0.baseAddress, $0.count, &length, &error)
            }
        }
        if let error { leveldb_free(error) }
        guard let value else { return nil }
        defer { leveldb_free(value) }
        return Array(UnsafeRawBufferPointer(start: value, count: length))
    }

    /// A new iterator over this snapshot; call `close()` when done.
    func makeIterator() -> Cursor {
        Cursor(handle: leveldb_create_iterator(db, readOptions))
    }
}
