public import HearthCore

/// A walk over the keys of a `KeyValueDatabase` that start with one prefix, at the moment the
/// reader was made, across as many calls as the caller likes (a backup streaming the storage
/// catalog while uploads go on). Holds a LevelDB snapshot until `close()` (or the last
/// reference going); the database's `close()` waits for it. Used by one caller at a time.
public final class KeyValueSnapshotReader: @unchecked Sendable {
    private let db: LevelDB
    private let snapshot: Snapshot
    private let prefix: [UInt8]
    private var cursor: Cursor?

    init(db: LevelDB, prefix: [UInt8]) throws {
        self.db = db
        self.prefix = prefix
        snapshot = try db.makeSnapshot()
        let cursor = snapshot.makeIterator()
        cursor.seek(prefix)
        self.cursor = cursor
    }

    deinit { close() }

    /// The next key and value under the prefix, nil after the last.
    /// - Throws: `StoreError` `.damaged` when LevelDB could not read a block (keys may be
    ///   missing), `.closed` after `close()`.
    public func next() throws(StoreError) -> (key: [UInt8], value: [UInt8])? {
        guard let cursor else { throw StoreError(.closed, "The snapshot reader is closed.") }
        guard cursor.hasPrefix(prefix) else {
            if let fault = snapshot.readFault { throw fault.damage() }
            return nil
        }
        let row = (Array(cursor.keyBytes), Array(cursor.valueBytes))
        cursor.next()
        return row
    }

    /// Releases the snapshot.
    public func close() {
        guard cursor != nil else { return }
        cursor = nil
        db.releaseSnapshot(snapshot)
    }
}

extension KeyValueDatabase {
    /// A reader of the keys under `prefix` as they are now (`KeyValueSnapshotReader`).
    /// - Throws: `StoreError` `.closed` after `close()`.
    public func snapshotReader(prefix: [UInt8]) throws(StoreError) -> KeyValueSnapshotReader {
        do {
            return try KeyValueSnapshotReader(db: levelDB, prefix: prefix)
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError(.io, "\(error)")
        }
    }
}
