import CLevelDB
public import HearthCore

/// What `hearth doctor` found in one LevelDB database: whether it opens (with LevelDB's
/// paranoid checks), whether every block of every table reads back with a valid checksum, and,
/// for a Hearth tree store, whether its namespace table is well formed.
public struct StoreCheck: Sendable {
    /// The LevelDB directory checked.
    public let path: String
    /// Keys read (all of them when `problems` is empty).
    public let keys: Int
    /// Bytes of keys and values read.
    public let bytes: Int
    /// Namespaces registered (tree stores only).
    public let namespaces: [String]
    /// What is wrong, one sentence each; empty when the store is healthy.
    public let problems: [String]
    /// Why the store could not even be opened when that is not damage (a read-only or full
    /// disk, no permission): nothing to repair, the disk to fix first.
    public var cannotOpen: String? = nil

    public var isHealthy: Bool { problems.isEmpty }

    /// Opens `path` and reads every key. Opening may write (LevelDB replays its log into a
    /// table), as opening for service would; it never changes a stored value.
    /// - Parameter tree: check Hearth's namespace table too (the tree store, not accounts).
    public static func run(path: String, tree: Bool) -> StoreCheck {
        let options = leveldb_options_create()!
        defer { leveldb_options_destroy(options) }
        leveldb_options_set_paranoid_checks(options, 1)
        var error: UnsafeMutablePointer<CChar>?
        let db = leveldb_open(options, path, &error)
        if let error {
            let message = String(cString: error)
            leveldb_free(error)
            var check = StoreCheck(
                path: path,
                keys: 0,
                bytes: 0,
                namespaces: [],
                problems: ["it does not open: \(message)"]
            )
            let fault = StorageFault(message)
            if fault.cause != .damaged { check.cannotOpen = "\(fault.reason) (\(message))" }
            return check
        }
        defer { leveldb_close(db) }
        let read = leveldb_readoptions_create()!
        defer { leveldb_readoptions_destroy(read) }
        leveldb_readoptions_set_verify_checksums(read, 1)
        leveldb_readoptions_set_fill_cache(read, 0)
        let iterator = leveldb_create_iterator(db, read)!
        defer { leveldb_iter_destroy(iterator) }
        var scan = NamespaceTableScan(tree: tree)
        var keys = 0
        var bytes = 0
        leveldb_iter_seek_to_first(iterator)
        while leveldb_iter_valid(iterator) != 0 {
            var keyLength = 0
            var valueLength = 0
            let key = UnsafeRawBufferPointer(start: leveldb_iter_key(iterator, &keyLength), count: keyLength)
            let value = UnsafeRawBufferPointer(start: leveldb_iter_value(iterator, &valueLength), count: valueLength)
            scan.visit(key: key, value: value)
            keys += 1
            bytes += keyLength + valueLength
            leveldb_iter_next(iterator)
        }
        var problems: [String] = []
        leveldb_iter_get_error(iterator, &error)
        if let error {
            problems.append("a read failed (the \(keys) keys around it were read): \(String(cString: error))")
            leveldb_free(error)
        }
        problems += scan.problems
        return StoreCheck(path: path, keys: keys, bytes: bytes, namespaces: scan.names, problems: problems)
    }

    /// Runs LevelDB's repair on `path`: it rebuilds the MANIFEST from the table and log files
    /// it finds and keeps every record it can still read (damaged blocks and files are dropped,
    /// so their records are lost, and a delete that was in them may be undone).
    /// - Throws: `StoreError` `.io` when LevelDB could not repair it.
    public static func repair(path: String) throws(StoreError) {
        let options = leveldb_options_create()!
        defer { leveldb_options_destroy(options) }
        // Repair reads each table with checksums verified only under paranoid checks; without
        // them a damaged block can decode and the table is kept as it is.
        leveldb_options_set_paranoid_checks(options, 1)
        var error: UnsafeMutablePointer<CChar>?
        leveldb_repair_db(options, path, &error)
        if let error {
            let message = String(cString: error)
            leveldb_free(error)
            throw StoreError(.io, "LevelDB could not repair '\(path)': \(message)")
        }
    }
}

/// The namespace table of a tree store (`N<name>` → a 4-byte id; `S<id>` → an 8-byte sequence
/// number), checked as the keys go by.
private struct NamespaceTableScan {
    let tree: Bool
    var names: [String] = []
    var problems: [String] = []
    private var ids: [UInt32: String] = [:]

    init(tree: Bool) { self.tree = tree }

    mutating func visit(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) {
        guard tree, let table = key.first else { return }
        if table == KeySpace.namespaceTable {
            let name = String(decoding: key.dropFirst(), as: UTF8.self)
            guard (try? Store.validateNamespaceName(name)) != nil, value.count == 4 else {
                return note("the namespace table holds a malformed entry for '\(name)'")
            }
            let id = KeySpace.decodeBigEndian(value)
            if let other = ids[id] { return note("namespaces '\(other)' and '\(name)' share the id \(id)") }
            ids[id] = name
            names.append(name)
        } else if table == KeySpace.sequenceTable, key.count == 5, value.count != 8 {
            note("the sequence number of namespace id \(KeySpace.decodeBigEndian(key.dropFirst())) is malformed")
        }
    }

    private mutating func note(_ problem: String) {
        if problems.count < 20 { problems.append(problem) }
    }
}
