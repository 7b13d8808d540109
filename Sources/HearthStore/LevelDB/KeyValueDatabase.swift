public import HearthCore

/// A plain LevelDB database of byte keys and values through the store's own wrapper (`LevelDB`),
/// for data that is not a JSON tree: the accounts keep theirs in `<data>/accounts/db/`, where no
/// REST path, rule or listener can reach it. Thread-safe; closing waits for calls in flight.
public final class KeyValueDatabase: Sendable {
    private let db: LevelDB
    /// Syncs what `apply` wrote without syncing (nil: nothing does but LevelDB's own flushes).
    private let backgroundSync: BackgroundLogSync?

    /// The database itself (backups read a snapshot of it).
    var levelDB: LevelDB { db }

    /// Opens (creating) the database at `path`, with LevelDB's default buffer and cache sizes.
    /// With `syncEvery` (milliseconds: `--sync periodic`), what `apply` writes without syncing
    /// is fdatasynced in the background within that long, as the database's writes are.
    /// - Throws: `StoreError` `.locked` when another process holds it, `.io` otherwise.
    public init(path: String, syncEvery: Int? = nil) throws(StoreError) {
        let db: LevelDB
        do {
            db = try LevelDB(path: path, writeBufferSize: 4 << 20, cacheBytes: 8 << 20)
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError(.io, "Cannot open the database '\(path)': \(error)")
        }
        self.db = db
        backgroundSync = syncEvery.map { BackgroundLogSync(db: db, interval: $0, label: "hearth.sync.kv") }
    }

    /// The value at `key`, or nil.
    /// - Throws: `StoreError` `.closed` after `close()`.
    public func get(_ key: [UInt8]) throws(StoreError) -> [UInt8]? {
        try Self.typed { try db.withSnapshot { $0.get(key) } }
    }

    /// Every key and value whose key starts with `prefix`, in key order.
    /// - Throws: `StoreError` `.closed` after `close()`.
    public func scan(prefix: [UInt8]) throws(StoreError) -> [(key: [UInt8], value: [UInt8])] {
        try Self.typed {
            try db.withSnapshot { snapshot in
                let cursor = snapshot.makeIterator()
                var rows: [(key: [UInt8], value: [UInt8])] = []
                cursor.seek(prefix)
                while cursor.hasPrefix(prefix) {
                    rows.append((Array(cursor.keyBytes), Array(cursor.valueBytes)))
                    cursor.next()
                }
                return rows
            }
        }
    }

    /// Walks the keys that start with `prefix` in key order, from the first at or after `start`,
    /// handing each key and value to `visit` until it returns false or those keys end: a bounded
    /// range read (the caller decides when to stop), not a copy of every row.
    /// - Throws: `StoreError` `.closed` after `close()`.
    public func scan(
        prefix: [UInt8],
        from start: [UInt8],
        _ visit: (_ key: [UInt8], _ value: [UInt8]) -> Bool
    ) throws(StoreError) {
        try Self.typed {
            try db.withSnapshot { snapshot in
                let cursor = snapshot.makeIterator()
                cursor.seek(start.lexicographicallyPrecedes(prefix) ? prefix : start)
                while cursor.hasPrefix(prefix), visit(Array(cursor.keyBytes), Array(cursor.valueBytes)) {
                    cursor.next()
                }
            }
        }
    }

    /// Applies every put (a value) and delete (nil) as one atomic batch; with `sync`, only after
    /// LevelDB's log is fsynced.
    /// - Throws: `StoreError` `.io` when LevelDB refuses the batch, `.closed` after `close()`.
    public func apply(_ changes: [(key: [UInt8], value: [UInt8]?)], sync: Bool) throws(StoreError) {
        let batch = WriteBatch()
        for (key, value) in changes {
            if let value { batch.put(key, value) } else { batch.delete(key) }
        }
        try Self.typed { try db.write(batch, sync: sync) }
        if !sync { backgroundSync?.wrote() }
    }

    /// Closes the database once calls in flight are done (syncing what it holds); later calls
    /// fail with `.closed`.
    public func close() {
        if let backgroundSync {
            backgroundSync.cancel()
            try? db.sync()
        }
        db.close()
    }

    /// `body`'s errors as `StoreError`s (the wrapper throws only those).
    private static func typed<T>(_ body: () throws -> T) throws(StoreError) -> T {
        do {
            return try body()
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError(.io, "\(error)")
        }
    }
}
