import CLevelDB

/// A LevelDB snapshot plus read options bound to it; valid inside `LevelDB.withSnapshot`.
///
/// A read LevelDB fails (a block failing its checksum, a table file missing or unreadable) is
/// noted here and on the database (`readFault`, `LevelDB.noteDamage`): `withSnapshot` then
/// throws instead of returning what was read, and the database refuses every later write. An
/// iterator's error is noted when it ends, or at the latest when its cursor goes.
final class Snapshot {
    private let db: OpaquePointer
    private let snapshot: OpaquePointer
    private unowned let owner: LevelDB
    let readOptions: OpaquePointer
    /// The first read failure of this snapshot.
    private(set) var readFault: StorageFault?

    init(db: OpaquePointer, owner: LevelDB) {
        self.db = db
        self.owner = owner
        snapshot = leveldb_create_snapshot(db)
        readOptions = leveldb_readoptions_create()
        leveldb_readoptions_set_snapshot(readOptions, snapshot)
        // Blocks read from disk are checked (cached blocks were checked when read).
        leveldb_readoptions_set_verify_checksums(readOptions, 1)
    }

    /// One iterator for callers that use it one at a time (the write planner), made on first use.
    private var shared: Cursor?

    func sharedCursor() -> Cursor {
        if let shared { return shared }
        let cursor = makeIterator()
        shared = cursor
        return cursor
    }

    /// Drops the shared cursor (which reports an error it met, see `Cursor.reportError`) and
    /// the snapshot; `readFault` stays readable.
    func release() {
        shared = nil
        leveldb_readoptions_destroy(readOptions)
        leveldb_release_snapshot(db, snapshot)
    }

    /// The value at `key`, or nil (also when the read failed: see `readFault`).
    func get(_ key: [UInt8]) -> [UInt8]? {
        var length = 0
        var error: UnsafeMutablePointer<CChar>?
        let value = key.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) {
                leveldb_get(db, readOptions, $0.baseAddress, $0.count, &length, &error)
            }
        }
        if let error {
            noteReadFailure(String(cString: error))
            leveldb_free(error)
        }
        guard let value else { return nil }
        defer { leveldb_free(value) }
        return Array(UnsafeRawBufferPointer(start: value, count: length))
    }

    /// A new iterator over this snapshot; call `close()` when done.
    func makeIterator() -> Cursor {
        Cursor(handle: leveldb_create_iterator(db, readOptions)) { [weak self] in self?.noteReadFailure($0) }
    }

    private func noteReadFailure(_ message: String) {
        let fault = StorageFault(message)
        if readFault == nil { readFault = fault }
        owner.noteDamage(fault)
    }
}
