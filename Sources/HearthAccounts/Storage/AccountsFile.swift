import HearthStore

/// The accounts' LevelDB database with string keys: the store's `KeyValueDatabase`, its
/// failures as `AccountsError`s. A read of a closed database finds nothing.
struct AccountsFile: Sendable {
    let database: KeyValueDatabase
    let path: String

    /// Opens (creating) the database at `path`.
    /// - Throws: `AccountsError` `.databaseInUse` when another process holds it, else
    ///   `.internalError`.
    init(path: String) throws(AccountsError) {
        self.path = path
        do {
            database = try KeyValueDatabase(path: path)
        } catch  where error.code == .locked {
            throw AccountsError(
                .databaseInUse,
                "The accounts database '\(path)' is in use by another Hearth process."
            )
        } catch {
            throw .storage("Cannot open the accounts database '\(path)': \(error.message)")
        }
    }

    /// The value at `key`, or nil.
    func get(_ key: String) -> [UInt8]? {
        (try? database.get(Array(key.utf8))) ?? nil
    }

    /// Every (key, value) whose key starts with `prefix`, in key order.
    func scan(prefix: String) -> [(key: String, value: [UInt8])] {
        let rows = (try? database.scan(prefix: Array(prefix.utf8))) ?? []
        return rows.map { (String(decoding: $0.key, as: UTF8.self), $0.value) }
    }

    /// Walks the keys that start with `prefix` from the first at or after `start`, in key order,
    /// until `visit` returns false (a read of a closed database visits nothing).
    func scan(prefix: String, from start: String, _ visit: (_ key: String, _ value: [UInt8]) -> Bool) {
        try? database.scan(prefix: Array(prefix.utf8), from: Array(start.utf8)) { key, value in
            visit(String(decoding: key, as: UTF8.self), value)
        }
    }

    /// Applies every put (value) and delete (nil) atomically; with `sync`, after an fsync.
    func apply(_ changes: [(key: String, value: [UInt8]?)], sync: Bool) throws(AccountsError) {
        do {
            try database.apply(changes.map { (Array($0.key.utf8), $0.value) }, sync: sync)
        } catch  where error.code == .closed {
            throw .storage("The accounts database is closed.")
        } catch {
            throw .storage("Writing the accounts database failed: \(error.message)")
        }
    }

    func close() { database.close() }
}
