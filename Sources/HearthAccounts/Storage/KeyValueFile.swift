import CLevelDB
import Foundation
import Synchronization

/// The accounts' own LevelDB database (thread-safe C handle): point reads, prefix scans and
/// atomic batches. Separate from the JSON tree's database, so no data API can reach it.
final class KeyValueFile: Sendable {
    nonisolated(unsafe) private let db: OpaquePointer
    nonisolated(unsafe) private let options: OpaquePointer
    nonisolated(unsafe) private let readOptions: OpaquePointer
    nonisolated(unsafe) private let syncWrite: OpaquePointer
    nonisolated(unsafe) private let asyncWrite: OpaquePointer
    private struct State {
        var closed = false
        var active = 0
    }
    private let state = Mutex(State())
    let path: String

    /// Opens (creating) the database at `path`.
    /// - Throws: `AccountsError` with `.internalError`; the message says when another process
    ///   holds the database.
    init(path: String) throws(AccountsError) {
        self.path = path
        let options = leveldb_options_create()!
        leveldb_options_set_create_if_missing(options, 1)
        var error: UnsafeMutablePointer<CChar>?
        let db = leveldb_open(options, path, &error)
        if let error {
            let message = String(cString: error)
            leveldb_free(error)
            leveldb_options_destroy(options)
            if message.lowercased().contains("lock") {
                throw AccountsError.storage(
                    "The accounts database '\(path)' is in use by another Hearth process (\(message))."
                )
            }
            throw AccountsError.storage("Cannot open the accounts database '\(path)': \(message)")
        }
        self.db = db!
        self.options = options
        readOptions = leveldb_readoptions_create()!
        syncWrite = leveldb_writeoptions_create()!
        leveldb_writeoptions_set_sync(syncWrite, 1)
        asyncWrite = leveldb_writeoptions_create()!
        leveldb_writeoptions_set_sync(asyncWrite, 0)
    }

    /// The value at `key`, or nil.
    func get(_ key: String) -> [UInt8]? {
        guard enter() else { return nil }
        defer { leave() }
        var length = 0
        var error: UnsafeMutablePointer<CChar>?
        let bytes = Array(key.utf8)
        let value = bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) {
                leveldb_get(db, readOptions, $0.baseAddress, $0.count, &length, &error)
            }
        }
        if let error { leveldb_free(error) }
        guard let value else { return nil }
        defer { leveldb_free(value) }
        return Array(UnsafeRawBufferPointer(start: value, count: length))
    }

    /// Every (key, value) whose key starts with `prefix`, in key order.
    func scan(prefix: String) -> [(key: String, value: [UInt8])] {
        guard enter() else { return [] }
        defer { leave() }
        let iterator = leveldb_create_iterator(db, readOptions)!
        defer { leveldb_iter_destroy(iterator) }
        let start = Array(prefix.utf8)
        start.withUnsafeBufferPointer { k in
            k.withMemoryRebound(to: CChar.self) { leveldb_iter_seek(iterator, $0.baseAddress, $0.count) }
        }
        var rows: [(key: String, value: [UInt8])] = []
        while leveldb_iter_valid(iterator) != 0 {
            var keyLength = 0
            var valueLength = 0
            let keyPointer = leveldb_iter_key(iterator, &keyLength)
            let key = Array(UnsafeRawBufferPointer(start: keyPointer, count: keyLength))
            guard key.starts(with: start) else { break }
            let valuePointer = leveldb_iter_value(iterator, &valueLength)
            rows.append(
                (
                    String(decoding: key, as: UTF8.self),
                    Array(UnsafeRawBufferPointer(start: valuePointer, count: valueLength))
                )
            )
            leveldb_iter_next(iterator)
        }
        return rows
    }

    /// Applies every put (value) and delete (nil) atomically; with `sync`, after an fsync.
    func apply(_ changes: [(key: String, value: [UInt8]?)], sync: Bool) throws(AccountsError) {
        guard enter() else { throw .storage("The accounts database is closed.") }
        defer { leave() }
        let batch = leveldb_writebatch_create()!
        defer { leveldb_writebatch_destroy(batch) }
        for (key, value) in changes {
            let keyBytes = Array(key.utf8)
            keyBytes.withUnsafeBufferPointer { k in
                k.withMemoryRebound(to: CChar.self) { kc in
                    if let value {
                        value.withUnsafeBufferPointer { v in
                            v.withMemoryRebound(to: CChar.self) { vc in
                                leveldb_writebatch_put(batch, kc.baseAddress, kc.count, vc.baseAddress, vc.count)
                            }
                        }
                    } else {
                        leveldb_writebatch_delete(batch, kc.baseAddress, kc.count)
                    }
                }
            }
        }
        var error: UnsafeMutablePointer<CChar>?
        leveldb_write(db, sync ? syncWrite : asyncWrite, batch, &error)
        if let error {
            let message = String(cString: error)
            leveldb_free(error)
            throw .storage("Writing the accounts database failed: \(message)")
        }
    }

    private func enter() -> Bool {
        state.withLock { state in
            if state.closed { return false }
            state.active += 1
            return true
        }
    }

    private func leave() { state.withLock { $0.active -= 1 } }

    /// Closes the database once in-flight reads and writes are done; later calls fail.
    func close() {
        let first = state.withLock { state -> Bool in
            defer { state.closed = true }
            return !state.closed
        }
        guard first else { return }
        while state.withLock({ $0.active }) > 0 { usleep(1000) }
        leveldb_close(db)
        leveldb_readoptions_destroy(readOptions)
        leveldb_writeoptions_destroy(syncWrite)
        leveldb_writeoptions_destroy(asyncWrite)
        leveldb_options_destroy(options)
    }
}
