import Foundation
import HearthCore
import HearthStore

/// The objects' metadata, in a LevelDB database of its own (`<data>/storage/db`, like the
/// accounts'): no REST path, rule or listener reaches it. Keys:
/// - `o` + bucket + `0x00` + name → the object's `ObjectMetadata` as JSON (listings are range
///   reads over a bucket's names, in byte order);
/// - `g` + generation → bucket + `0x00` + name: which generations (files) are live, so that the
///   sweep at start finds a file's object with one read.
/// - `u` + upload id → a resumable upload's `ResumableSession` as JSON;
/// - in a cluster, `z/position`: the position in the cluster's storage log (`SharedLog`, stream `storage`) of the
///   last batch this copy holds. Objects (`o`, `g`) are the cluster's; sessions (`u`) are this
///   node's own, never in the log.
/// Every change is one atomic batch (`write`).
struct ObjectCatalog: Sendable {
    let database: KeyValueDatabase
    /// In a cluster: the log this catalog is a copy of.
    let replica = CatalogReplica()
    /// Whether each change waits for an fsync of LevelDB's log (`--sync always`); without it a
    /// change survives `kill -9` (the OS has it) and is fsynced in the background within the
    /// periodic mode's interval, as the database's writes are (`--sync periodic`).
    let syncAlways: Bool

    init(path: String, syncMode: SyncMode) throws(StorageError) {
        let periodic: Int?
        if case .periodic(let milliseconds) = syncMode { periodic = milliseconds } else { periodic = nil }
        do {
            database = try KeyValueDatabase(path: path, syncEvery: periodic)
        } catch  where error.code == .locked {
            throw StorageError(.io, "The storage catalog '\(path)' is in use by another Hearth process.")
        } catch {
            throw StorageError(.io, "Cannot open the storage catalog '\(path)': \(error.message)")
        }
        syncAlways = syncMode == .always
    }

    func close() { database.close() }

    // MARK: Keys

    /// The first byte of every object's key.
    static let objectTag = UInt8(ascii: "o")

    private static func bucketPrefix(_ bucket: BucketName) -> [UInt8] {
        [objectTag] + Array(bucket.value.utf8) + [0]
    }

    static func objectKey(_ bucket: BucketName, _ name: String) -> [UInt8] {
        bucketPrefix(bucket) + Array(name.utf8)
    }

    private static func generationKey(_ generation: String) -> [UInt8] {
        [UInt8(ascii: "g")] + Array(generation.utf8)
    }

    // MARK: Reads

    /// The metadata of `name` in `bucket`, or nil.
    func metadata(_ bucket: BucketName, _ name: ObjectName) throws(StorageError) -> ObjectMetadata? {
        guard
            let bytes = try Self.typed({ () throws(StoreError) in try database.get(Self.objectKey(bucket, name.value)) }
            )
        else { return nil }
        return try Self.decode(bytes)
    }

    /// Whether a live object has `generation` (its file is not an orphan).
    func isLive(generation: String) throws(StorageError) -> Bool {
        try Self.typed { () throws(StoreError) in try database.get(Self.generationKey(generation)) } != nil
    }

    /// One page of `bucket`'s objects whose names start with `prefix`, in byte order of name.
    /// With a `delimiter`, names with the delimiter after the prefix are rolled up into
    /// `prefixes` (each once, up to and including the delimiter), as Cloud Storage lists
    /// "folders". Items and prefixes together are at most `limit`; `nextPageToken` continues
    /// after the last of them.
    func list(
        _ bucket: BucketName,
        prefix: String,
        delimiter: String?,
        pageToken: String?,
        limit: Int
    ) throws(StorageError) -> ObjectListing {
        let base = Self.bucketPrefix(bucket)
        let scope = base + Array(prefix.utf8)
        var start = scope
        if let pageToken {
            guard let data = Data(base64Encoded: pageToken), Array(data).starts(with: scope) else {
                throw StorageError(.invalidMetadata, "The page token does not belong to this listing.")
            }
            start = Array(data)
        }
        let delimiterBytes = delimiter.flatMap { $0.isEmpty ? nil : Array($0.utf8) }
        var listing = ObjectListing()
        var next: [UInt8]?
        var resume: [UInt8]? = start
        while let from = resume {
            resume = nil
            var failure: StorageError?
            try Self.typed { () throws(StoreError) in
                try database.scan(prefix: scope, from: from) { key, value in
                    if listing.items.count + listing.prefixes.count == limit {
                        next = key
                        return false
                    }
                    let rest = key[scope.count...]
                    if let delimiterBytes, let end = Self.firstRange(of: delimiterBytes, in: Array(rest)) {
                        let folderEnd = scope.count + end + delimiterBytes.count
                        listing.prefixes.append(String(decoding: key[base.count..<folderEnd], as: UTF8.self))
                        // Skip every name under the folder: seek past its last possible key.
                        resume = Self.successor(of: Array(key[..<folderEnd]))
                        return false
                    }
                    do throws(StorageError) {
                        listing.items.append(try Self.decode(value))
                    } catch {
                        failure = error
                        return false
                    }
                    return true
                }
            }
            if let failure { throw failure }
            if next != nil { break }
        }
        listing.nextPageToken = next.map { Data($0).base64EncodedString() }
        return listing
    }

    /// The buckets holding at least one object, in byte order: one seek per bucket.
    func buckets() throws(StorageError) -> [String] {
        let table = [UInt8(ascii: "o")]
        var found: [String] = []
        var resume: [UInt8]? = table
        while let from = resume {
            resume = nil
            try Self.typed { () throws(StoreError) in
                try database.scan(prefix: table, from: from) { key, _ in
                    guard let end = key.dropFirst().firstIndex(of: 0) else { return true }
                    found.append(String(decoding: key[1..<end], as: UTF8.self))
                    resume = Array(key[..<end]) + [1]  // past every name of this bucket
                    return false
                }
            }
        }
        return found
    }

    // MARK: Resumable sessions

    private static func sessionKey(_ id: String) -> [UInt8] {
        [UInt8(ascii: "u")] + Array(id.utf8)
    }

    func session(_ id: String) throws(StorageError) -> ResumableSession? {
        guard let bytes = try Self.typed({ () throws(StoreError) in try database.get(Self.sessionKey(id)) }) else {
            return nil
        }
        do { return try JSONDecoder().decode(ResumableSession.self, from: Data(bytes)) } catch {
            throw StorageError(.io, "The storage catalog holds an upload session it cannot read: \(error)")
        }
    }

    /// Every session, in id order.
    func sessions() throws(StorageError) -> [ResumableSession] {
        let rows = try Self.typed { () throws(StoreError) in try database.scan(prefix: [UInt8(ascii: "u")]) }
        return rows.compactMap { try? JSONDecoder().decode(ResumableSession.self, from: Data($0.value)) }
    }

    /// Saves `session` (nil: removes session `id`).
    func save(_ session: ResumableSession?, id: String) throws(StorageError) {
        let change = try Self.sessionChange(session, id: id)
        try write([change], sync: syncAlways)
    }

    private static func sessionChange(
        _ session: ResumableSession?,
        id: String
    ) throws(StorageError) -> (key: [UInt8], value: [UInt8]?) {
        guard let session else { return (sessionKey(id), nil) }
        do { return (sessionKey(id), Array(try JSONEncoder().encode(session))) } catch {
            throw StorageError(.io, "Cannot encode an upload session: \(error)")
        }
    }

    // MARK: Changes

    /// Makes `object` the live version of its name (after its file is in place); `replaced`
    /// is the version it replaces, whose generation stops being live in the same batch, as does
    /// `session`'s final state when given (a resumable upload's finalize).
    func commit(
        _ object: ObjectMetadata,
        replacing replaced: ObjectMetadata?,
        session: ResumableSession? = nil
    ) throws(StorageError) {
        var changes = try objectChanges(object, replacing: replaced)
        if let session { changes.append(try Self.sessionChange(session, id: session.id)) }
        try write(changes, sync: syncAlways)
    }

    func objectChanges(
        _ object: ObjectMetadata,
        replacing replaced: ObjectMetadata?
    ) throws(StorageError) -> [(key: [UInt8], value: [UInt8]?)] {
        let bucket = try BucketName(object.bucket)
        var changes: [(key: [UInt8], value: [UInt8]?)] = [
            (Self.objectKey(bucket, object.name), try Self.encode(object)),
            (Self.generationKey(object.generation), Array(Self.objectKey(bucket, object.name).dropFirst())),
        ]
        if let replaced, replaced.generation != object.generation {
            changes.append((Self.generationKey(replaced.generation), nil))
        }
        return changes
    }

    /// Adds `objects` (their files in place) as they are, in one batch: a restore's.
    func restore(_ objects: [ObjectMetadata], sync: Bool) throws(StorageError) {
        var changes: [(key: [UInt8], value: [UInt8]?)] = []
        for object in objects { changes += try objectChanges(object, replacing: nil) }
        try write(changes, sync: sync)
    }

    /// Removes `object` (its generation stops being live in the same batch).
    func remove(_ object: ObjectMetadata) throws(StorageError) {
        let bucket = try BucketName(object.bucket)
        try write(
            [(Self.objectKey(bucket, object.name), nil), (Self.generationKey(object.generation), nil)],
            sync: syncAlways
        )
    }

    /// Applies `changes` in one atomic batch. In a cluster, the objects' changes among them are
    /// appended to the storage log first, at the position after this copy's.
    /// - Throws: `.superseded` when another node's batch took that position (nothing changed:
    ///   catch up and make the change again), `.unavailable` when the log did not answer.
    func write(_ changes: [(key: [UInt8], value: [UInt8]?)], sync: Bool) throws(StorageError) {
        guard let cluster = replica.current else {
            try Self.typed { () throws(StoreError) in try database.apply(changes, sync: sync) }
            return
        }
        let shared = changes.filter { Self.isShared($0.key) }
        guard !shared.isEmpty else {
            try Self.typed { () throws(StoreError) in try database.apply(changes, sync: sync) }
            return
        }
        let position = cluster.position + 1
        let appended: Bool
        do {
            appended = try cluster.log.append(SharedLogBatch.encode(shared), at: position)
        } catch {
            throw StorageError.unavailable(error)
        }
        guard appended else {
            throw StorageError(.superseded, "Another node changed the files first; retry.")
        }
        // The log holds it: a failure here leaves this copy behind, and the next catch-up
        // applies the batch from the log.
        try Self.typed { () throws(StoreError) in
            try database.apply(changes + [(Self.positionKey, Self.positionValue(position))], sync: sync)
        }
        replica.move(to: position)
        cluster.follower.snapshotIfDue(at: position, rows: sharedRows)
    }

    // MARK: The cluster's log

    /// This copy's position in the cluster's storage log.
    static let positionKey = Array("z/position".utf8)

    static func positionValue(_ position: Int64) -> [UInt8] { Array(String(position).utf8) }

    /// Whether `key` is the cluster's (an object's metadata or a live generation), not this
    /// node's own (a resumable session, the position).
    static func isShared(_ key: [UInt8]) -> Bool {
        key.first == objectTag || key.first == UInt8(ascii: "g")
    }

    /// The generation a `g` key names.
    static func generation(ofKey key: [UInt8]) -> String? {
        key.first == UInt8(ascii: "g") ? String(decoding: key.dropFirst(), as: UTF8.self) : nil
    }

    /// The position this copy holds, nil when the catalog never was a cluster's copy.
    func storedPosition() throws(StorageError) -> Int64? {
        try Self.typed { () throws(StoreError) in try database.get(Self.positionKey) }.flatMap {
            Int64(String(decoding: $0, as: UTF8.self))
        }
    }

    /// Every object's rows (metadata and live generation), to seed a cluster's log.
    func sharedRows() throws(StorageError) -> [(key: [UInt8], value: [UInt8]?)] {
        var rows: [(key: [UInt8], value: [UInt8]?)] = []
        for tag in [Self.objectTag, UInt8(ascii: "g")] {
            rows += try Self.typed { () throws(StoreError) in try database.scan(prefix: [tag]) }.map {
                (key: $0.key, value: Optional($0.value))
            }
        }
        return rows
    }

    /// Applies a batch read from the cluster's log at `position` (another node's, or a seed).
    func applyReplicated(_ changes: [(key: [UInt8], value: [UInt8]?)], at position: Int64) throws(StorageError) {
        try Self.typed { () throws(StoreError) in
            try database.apply(changes + [(Self.positionKey, Self.positionValue(position))], sync: false)
        }
        replica.move(to: position)
    }

    /// Removes every object's rows and the position (a copy of another log starts again).
    func clearShared() throws(StorageError) {
        let rows = try sharedRows().map { (key: $0.key, value: [UInt8]?.none) }
        try Self.typed { () throws(StoreError) in
            try database.apply(rows + [(Self.positionKey, nil)], sync: true)
        }
    }

    // MARK: Support

    private static func encode(_ object: ObjectMetadata) throws(StorageError) -> [UInt8] {
        do { return Array(try JSONEncoder().encode(object)) } catch {
            throw StorageError(.io, "Cannot encode the metadata of '\(object.name)': \(error)")
        }
    }

    static func decode(_ bytes: [UInt8]) throws(StorageError) -> ObjectMetadata {
        do { return try JSONDecoder().decode(ObjectMetadata.self, from: Data(bytes)) } catch {
            throw StorageError(.io, "The storage catalog holds metadata it cannot read: \(error)")
        }
    }

    /// The first key after every key that starts with `key` (its last byte increased, carrying).
    private static func successor(of key: [UInt8]) -> [UInt8] {
        var key = key
        while let last = key.last {
            if last < 0xFF {
                key[key.count - 1] = last + 1
                return key
            }
            key.removeLast()
        }
        return [0xFF]
    }

    private static func firstRange(of needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard needle.count <= haystack.count else { return nil }
        for start in 0...(haystack.count - needle.count)
        where haystack[start..<(start + needle.count)].elementsEqual(needle) {
            return start
        }
        return nil
    }

    static func typed<T>(_ body: () throws(StoreError) -> T) throws(StorageError) -> T {
        do {
            return try body()
        } catch  where error.code == .closed {
            throw StorageError(.closed, "The storage catalog is closed.")
        } catch  where error.code == .storageFailure {
            // The disk refused the catalog's write (or it is being reopened after that): the
            // store's sentence says why without the server's files, and it retries by itself.
            throw StorageError(.diskFault, error.message)
        } catch {
            throw StorageError(.io, "The storage catalog failed: \(error.message)")
        }
    }
}

/// One page of a listing (`ObjectStore.list`).
public struct ObjectListing: Sendable, Equatable {
    public var items: [ObjectMetadata] = []
    /// The "folders" under the prefix, each ending with the delimiter.
    public var prefixes: [String] = []
    /// Continues the listing after this page; nil on the last page.
    public var nextPageToken: String?
}
