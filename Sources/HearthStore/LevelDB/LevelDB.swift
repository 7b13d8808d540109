import CLevelDB
import Dispatch
import HearthCore
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A thread-safe handle on one LevelDB database (the C API), with tracked snapshots so that
/// closing never frees the database under a reader.
///
/// Faults of the disk (see docs/disk-faults.md): a write LevelDB refuses leaves the handle
/// refusing every later write (its log may end in a partial record), so the next write, at
/// most once a second, reopens the database once a probe file could be written and synced
/// (`LevelDB+Recovery.swift`). A read that finds damaged files fails, and from then on every
/// write is refused until the store is repaired (`hearth doctor`).
final class LevelDB: Sendable {
    /// The C handle of an open database; LevelDB's own locking makes it safe to share.
    struct Handle: @unchecked Sendable {
        let pointer: OpaquePointer
        init(_ pointer: OpaquePointer) { self.pointer = pointer }
    }

    struct State {
        var closed = false
        var activeReaders = 0
        /// The open database; nil only after a reopen failed.
        var handle: Handle?
        /// The fault of the last refused write, until a reopen succeeds.
        var writeFault: StorageFault?
        /// Damage found by a read or a write; lasts as long as the process.
        var damage: StorageFault?
        /// A reopen is being attempted (by one writer at a time).
        var reopening = false
        /// New readers are refused while a reopen waits for the others to finish.
        var refusingReaders = false
        var lastReopen: ContinuousClock.Instant?
        /// Write faults noted so far: a write in flight when one is noted is not acknowledged.
        var writeFaults = 0
    }

    nonisolated(unsafe) let options: OpaquePointer
    /// `options` without paranoid checks, for a reopen after a write fault (see
    /// `LevelDB+Recovery.swift`).
    nonisolated(unsafe) let reopenOptions: OpaquePointer
    nonisolated(unsafe) private let cache: OpaquePointer
    nonisolated(unsafe) private let filter: OpaquePointer
    nonisolated(unsafe) private let syncWrite: OpaquePointer
    nonisolated(unsafe) private let asyncWrite: OpaquePointer
    /// Internal for `LevelDB+Recovery.swift`; nothing else touches it.
    let state: Mutex<State>
    /// Prefixes waiting for `compactSoon`'s delayed compaction, and whether one is scheduled.
    private let deletedRanges = Mutex<(prefixes: [[UInt8]], scheduled: Bool)>(([], false))
    let path: String

    init(path: String, writeBufferSize: Int, cacheBytes: Int = 64 << 20) throws {
        self.path = path
        let cache = leveldb_cache_create_lru(cacheBytes)!
        let filter = leveldb_filterpolicy_create_bloom(10)!
        // Damage found while opening (a log record or the MANIFEST failing its checksum, a table
        // file missing) stops the open instead of being skipped; compactions verify what they read.
        let options = Self.options(writeBufferSize: writeBufferSize, cache: cache, filter: filter, paranoid: true)
        let reopenOptions = Self.options(
            writeBufferSize: writeBufferSize,
            cache: cache,
            filter: filter,
            paranoid: false
        )
        var error: UnsafeMutablePointer<CChar>?
        let db = leveldb_open(options, path, &error)
        if let error {
            let message = String(cString: error)
            leveldb_free(error)
            leveldb_options_destroy(options)
            leveldb_options_destroy(reopenOptions)
            leveldb_cache_destroy(cache)
            leveldb_filterpolicy_destroy(filter)
            throw Self.openFailure(path: path, message: message)
        }
        self.options = options
        self.reopenOptions = reopenOptions
        self.cache = cache
        self.filter = filter
        state = Mutex(State(handle: Handle(db!)))
        syncWrite = leveldb_writeoptions_create()!
        leveldb_writeoptions_set_sync(syncWrite, 1)
        asyncWrite = leveldb_writeoptions_create()!
        leveldb_writeoptions_set_sync(asyncWrite, 0)
    }

    private static func options(
        writeBufferSize: Int,
        cache: OpaquePointer,
        filter: OpaquePointer,
        paranoid: Bool
    ) -> OpaquePointer {
        let options = leveldb_options_create()!
        leveldb_options_set_create_if_missing(options, 1)
        leveldb_options_set_paranoid_checks(options, paranoid ? 1 : 0)
        leveldb_options_set_write_buffer_size(options, writeBufferSize)
        leveldb_options_set_max_open_files(options, 1000)
        leveldb_options_set_max_file_size(options, 8 << 20)
        leveldb_options_set_compression(options, Int32(leveldb_snappy_compression))
        leveldb_options_set_cache(options, cache)
        leveldb_options_set_filter_policy(options, filter)
        return options
    }

    /// Applies `batch` atomically; with `sync`, only after the log is fsynced.
    /// - Throws: `StoreError` `.storageFailure` when the disk refuses it (or refused an earlier
    ///   write and the store could not be reopened yet, or another write failed while this one
    ///   was in flight), `.damaged` once damage was found.
    func write(_ batch: WriteBatch, sync: Bool) throws {
        try recoverIfFailed()
        try withOpen { db in
            let faultsBefore = try writeFaultsBeforeWriting()
            var error: UnsafeMutablePointer<CChar>?
            batch.withHandle { leveldb_write(db, sync ? syncWrite : asyncWrite, $0, &error) }
            if let error {
                let fault = StorageFault(String(cString: error))
                leveldb_free(error)
                noteWriteFault(fault)
                throw fault.writeRefusal()
            }
            try refuseIfAnotherWriteFailed(since: faultsBefore)
        }
    }

    private static let compactionQueue = DispatchQueue(label: "hearth.compaction", qos: .utility)

    /// Compacts the key ranges under `prefixes` in the background, dropping the tombstones of
    /// bulk deletes (LevelDB's iterators otherwise step over each one on every seek).
    func compactInBackground(_ prefixes: [[UInt8]]) {
        guard !prefixes.isEmpty else { return }
        LevelDB.compactionQueue.async { [self] in
            for prefix in prefixes {
                try? withOpen { db in
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
        try withOpen { db in
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

    /// Forces the log to disk (a synced empty batch). Writes arriving meanwhile wait for it in
    /// LevelDB's queue: right where they must (`--sync always`, closing), not for the background
    /// sync (`syncLogs`).
    func sync() throws {
        let batch = WriteBatch()
        try write(batch, sync: true)
    }

    /// Forces what LevelDB's logs hold to disk beside its writes: each log file of the database
    /// (the current one, and the one before while its memtable is still being flushed) is
    /// fdatasynced through a descriptor of its own. Nothing waits for the disk meanwhile, where a
    /// synced empty batch (`sync`) holds every write that arrives behind it in LevelDB's queue
    /// (an event loop's round too) for as long as the fsync takes.
    ///
    /// A failed fdatasync is a write fault (`noteWriteFault`): the pages it should have written
    /// may be lost, so later writes are refused until the store reopens, as when LevelDB's own
    /// sync fails. A log deleted meanwhile was flushed to a table (synced) first. A log or the
    /// directory that cannot be opened (the process out of descriptors) is no fault of the
    /// disk: nothing was lost, and the next sync tries again.
    /// - Throws: the refusal of the fault, or `recoverIfFailed`'s while an earlier one lasts;
    ///   `.storageFailure` when a log could not be opened.
    func syncLogs() throws {
        try recoverIfFailed()
        try withOpen { _ in
            for name in try logFileNames() {
                let file = path + "/" + name
                let fd = Glibc.open(file, O_RDONLY | O_CLOEXEC)
                if fd < 0 {
                    if errno == ENOENT { continue }
                    throw Self.notOpened(file)
                }
                defer { _ = Glibc.close(fd) }
                if fdatasync(fd) != 0 { throw noteSyncFault("fdatasync", file) }
            }
        }
    }

    /// LevelDB's log files (`NNNNNN.log`) in the database's directory.
    private func logFileNames() throws -> [String] {
        guard let directory = opendir(path) else { throw Self.notOpened(path) }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { bytes in
                String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
            }
            let number = name.utf8.dropLast(4)
            if name.hasSuffix(".log"), !number.isEmpty, number.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) {
                names.append(name)
            }
        }
        return names
    }

    /// A log or the directory `syncLogs` could not open (the next sync tries again).
    private static func notOpened(_ file: String) -> StoreError {
        let outOfDescriptors = errno == EMFILE || errno == ENFILE
        var message = "Cannot open \(file) to sync it: \(String(cString: strerror(errno)))"
        if outOfDescriptors {
            message +=
                " (the process is out of file descriptors: raise its limit, `ulimit -n` or systemd's LimitNOFILE)"
        }
        return StoreError(.storageFailure, message)
    }

    /// Notes a failed fdatasync of `syncLogs` as a write fault (LevelDB's form of the error, so
    /// it is classified alike) and returns the refusal to throw.
    private func noteSyncFault(_ call: String, _ file: String) -> StoreError {
        let fault = StorageFault(Self.failure(call, file))
        noteWriteFault(fault)
        return fault.writeRefusal()
    }

    /// Runs `body` with a consistent snapshot; the database stays open meanwhile.
    /// - Throws: `StoreError` `.damaged` when a read in `body` found damaged files (what it read
    ///   cannot be trusted).
    func withSnapshot<T>(_ body: (Snapshot) throws -> T) throws -> T {
        let db = try enterReader()
        defer { leaveReader() }
        let snapshot = Snapshot(db: db, owner: self)
        let result: T
        do {
            result = try body(snapshot)
        } catch {
            snapshot.release()
            throw error
        }
        // Released first: its cursors report what they met as they go.
        snapshot.release()
        if let fault = snapshot.readFault { throw fault.damage() }
        return result
    }

    /// A snapshot kept past one call (the writer's round snapshot); the database stays open
    /// until `releaseSnapshot` is called with it.
    func makeSnapshot() throws -> Snapshot {
        Snapshot(db: try enterReader(), owner: self)
    }

    func releaseSnapshot(_ snapshot: Snapshot) {
        snapshot.release()
        leaveReader()
    }

    /// The open handle, counted as a reader until `leaveReader`. After a reopen that failed,
    /// tries one (at most once a second) first, so reads come back without waiting for a write.
    private func enterReader() throws -> OpaquePointer {
        if state.withLock({ $0.handle == nil && !$0.closed && !$0.reopening }) { try recoverIfFailed() }
        return try enter()
    }

    private func enter() throws -> OpaquePointer {
        let entered = state.withLock { state -> Result<OpaquePointer, StoreError> in
            if state.closed { return .failure(StoreError(.closed, "The store is closed.")) }
            if state.refusingReaders || state.handle == nil {
                let reason = state.writeFault.map { " after a disk fault (\($0.reason))" } ?? ""
                return .failure(
                    StoreError(.storageFailure, "The store is being reopened\(reason); try again in a moment.")
                )
            }
            state.activeReaders += 1
            return .success(state.handle!.pointer)
        }
        return try entered.get()
    }

    private func leaveReader() {
        state.withLock { $0.activeReaders -= 1 }
    }

    func withOpen<T>(_ body: (OpaquePointer) throws -> T) throws -> T {
        let db = try enterReader()
        defer { leaveReader() }
        return try body(db)
    }

    /// Closes the database after in-flight readers, writers and a reopen finish.
    func close() {
        let first = state.withLock { state -> Bool in
            if state.closed { return false }
            state.closed = true
            return true
        }
        guard first else { return }
        while state.withLock({ $0.activeReaders > 0 || $0.reopening }) {
            usleep(1000)
        }
        if let db = state.withLock({ $0.handle }) { leveldb_close(db.pointer) }
        state.withLock { $0.handle = nil }
        leveldb_writeoptions_destroy(syncWrite)
        leveldb_writeoptions_destroy(asyncWrite)
        leveldb_options_destroy(options)
        leveldb_options_destroy(reopenOptions)
        leveldb_cache_destroy(cache)
        leveldb_filterpolicy_destroy(filter)
    }
}
