import Crypto
import Foundation
public import HearthCore
import Synchronization

/// Firebase Storage's objects on this machine: bytes in files (`ObjectFiles`), metadata in a
/// catalog (`ObjectCatalog`), both under `<data>/storage/`. An upload is acknowledged only once
/// its bytes are fsynced in place and its metadata committed; a crash before that leaves nothing
/// visible, and the sweep at the next `open` removes what it left on disk.
///
/// Reads and writes block on the disk: call them off the event loops.
public final class ObjectStore: Sendable {
    /// The time of day in milliseconds since 1970.
    public static let wallClock: @Sendable () -> Double = { Date().timeIntervalSince1970 * 1000 }

    /// The most bytes one object may have unless configured (`--max-object-size`): 5 GiB.
    public static let defaultMaxObjectSize: UInt64 = 5 << 30

    let files: ObjectFiles
    let catalog: ObjectCatalog
    /// The largest object accepted, in bytes.
    public let maxObjectSize: UInt64
    /// The most resumable sessions active at once (`defaultMaxSessions`).
    public let maxSessions: Int
    /// The bytes unfinished resumable uploads hold together, at most (`defaultMaxSessionBytes`).
    public let maxSessionBytes: UInt64
    let clock: @Sendable () -> Double
    /// The last generation handed out (microseconds since 1970): each upload gets a later one.
    private let lastGeneration: Mutex<UInt64>
    /// Held while a change reads and commits the catalog (`changing`).
    private let changes = NSLock()
    /// Resumable sessions: active now, finished since the start (changed only in `changing`).
    let sessionCounts = SessionCounts()
    /// Resumable sessions' checksums between chunks.
    let runningChecksums = RunningChecksums()
    /// In a cluster: when the last catch-up with the storage log began (`synchronize`).
    let lastCatchUp = Mutex<ContinuousClock.Instant>(.now)
    /// The bytes unfinished resumable uploads hold.
    let sessionBytes: SessionBytes

    /// Opens (creating) the store under `<dataDirectory>/storage` and sweeps what an interrupted
    /// upload, replacement or delete left behind.
    /// - Parameter clock: milliseconds since 1970 (metadata times, generations).
    public init(
        dataDirectory: String,
        syncMode: SyncMode = .periodic(milliseconds: 100),
        maxObjectSize: UInt64 = ObjectStore.defaultMaxObjectSize,
        maxSessions: Int = ObjectStore.defaultMaxSessions,
        maxSessionBytes: UInt64 = ObjectStore.defaultMaxSessionBytes,
        clock: @escaping @Sendable () -> Double = ObjectStore.wallClock
    ) throws(StorageError) {
        let root = dataDirectory + "/storage"
        files = try ObjectFiles(root: root)
        catalog = try ObjectCatalog(path: root + "/db", syncMode: syncMode)
        self.maxObjectSize = maxObjectSize
        self.maxSessions = maxSessions
        self.maxSessionBytes = maxSessionBytes
        self.clock = clock
        let catalog = self.catalog
        let sessions = try Self.sweepSessions(catalog: catalog, files: files, now: clock())
        sessionCounts.active = sessions.active
        sessionBytes = SessionBytes(limit: maxSessionBytes, held: sessions.bytes)
        // New generations start past every live one: a restored directory's, or one written
        // before the clock stepped back, must never be handed out again (its file would be
        // overwritten).
        var highest: UInt64 = 0
        swept =
            try files.sweep { generation throws(StorageError) in
                let live = try catalog.isLive(generation: generation)
                if live, let number = UInt64(generation) { highest = max(highest, number) }
                return live
            }
            + sessions.removed
        lastGeneration = Mutex(highest)
    }

    /// How many files the sweep at `init` removed.
    public let swept: Int

    public func close() { catalog.close() }

    // MARK: Reads

    /// The metadata of `name` in `bucket`.
    /// - Throws: `StorageError` `.notFound`.
    public func metadata(_ bucket: BucketName, _ name: ObjectName) throws(StorageError) -> ObjectMetadata {
        guard let object = try catalog.metadata(bucket, name) else { throw Self.notFound(bucket, name) }
        return object
    }

    /// The file holding `object`'s bytes (stream it; it is replaced by a new file, never
    /// rewritten, so an open descriptor keeps reading the version it opened).
    public func path(of object: ObjectMetadata) -> String { files.path(of: object.generation) }

    /// One page of a bucket's objects under `prefix` (see `ObjectCatalog.list`); `limit` is
    /// clamped to 1...1000.
    public func list(
        _ bucket: BucketName,
        prefix: String = "",
        delimiter: String? = nil,
        pageToken: String? = nil,
        limit: Int = 1000
    ) throws(StorageError) -> ObjectListing {
        try catalog.list(
            bucket,
            prefix: prefix,
            delimiter: delimiter,
            pageToken: pageToken,
            limit: min(max(limit, 1), 1000)
        )
    }

    /// The buckets holding at least one object, in byte order of name.
    public func buckets() throws(StorageError) -> [BucketName] {
        try catalog.buckets().compactMap { try? BucketName($0) }
    }

    // MARK: Uploads

    /// Starts an upload: its bytes go to a part file as they come (`ObjectUpload.append`).
    public func beginUpload() throws(StorageError) -> ObjectUpload {
        let generation = try nextGeneration()
        return ObjectUpload(generation: generation, part: try files.create(generation), maxSize: maxObjectSize)
    }

    /// Finishes `upload` as `name` in `bucket`: its file goes in place durably, then its metadata
    /// is committed (replacing an older version, whose file goes). Returns the new metadata.
    /// On any failure the upload's bytes are removed and nothing is visible.
    public func finish(
        _ upload: ObjectUpload,
        as name: ObjectName,
        in bucket: BucketName,
        contentType: String?,
        metadata custom: [String: String] = [:]
    ) throws(StorageError) -> ObjectMetadata {
        try finish(upload, as: name, in: bucket, fields: ObjectFields(contentType: contentType, metadata: custom))
    }

    /// `finish(_:as:in:contentType:metadata:)` with every field an upload may set. `admit`
    /// judges the change (the version it replaces, if any, and the new one) with nothing else
    /// changing meanwhile; when it throws, nothing is visible and the bytes go.
    public func finish(
        _ upload: ObjectUpload,
        as name: ObjectName,
        in bucket: BucketName,
        fields: ObjectFields,
        admit: Admission? = nil
    ) throws(StorageError) -> ObjectMetadata {
        do throws(StorageError) {
            try ObjectMetadata.check(custom: fields.metadata)
            try files.install(upload.part, as: upload.generation)
            upload.part.close()
            // In a cluster the bytes are in PostgreSQL before the metadata names them.
            try publishShared(upload.generation)
            let object = version(
                of: name,
                in: bucket,
                generation: upload.generation,
                checksums: upload.checksums,
                fields: fields
            )
            try changing { () throws(StorageError) in
                if let admit {
                    do throws(StorageError) {
                        try admit(try catalog.metadata(bucket, name), object)
                    } catch {
                        files.remove(generation: object.generation)
                        throw error
                    }
                }
                try commitVersion(object)
            }
            return object
        } catch {
            upload.part.discard()
            if catalog.replica.current != nil {
                files.remove(generation: upload.generation)
                discardShared(upload.generation)
            }
            throw error
        }
    }

    /// Judges a change before it commits: the object as it is (nil: none) and as the change
    /// leaves it (nil: deleted). Throws to refuse.
    public typealias Admission = (_ existing: ObjectMetadata?, _ proposed: ObjectMetadata?) throws(StorageError) -> Void

    // MARK: Changes

    /// Deletes `name` from `bucket`: its metadata, then its file.
    /// - Throws: `StorageError` `.notFound`.
    public func delete(_ bucket: BucketName, _ name: ObjectName, admit: Admission? = nil) throws(StorageError) {
        let object = try changing { () throws(StorageError) in
            let object = try metadata(bucket, name)
            try admit?(object, nil)
            try catalog.remove(object)
            return object
        }
        files.remove(generation: object.generation)
        discardShared(object.generation)
    }

    /// Applies `patch` to the metadata of `name` (`metageneration` + 1, `updated` now).
    /// - Throws: `StorageError` `.notFound`, `.invalidMetadata` for custom metadata past its limit.
    public func update(
        _ bucket: BucketName,
        _ name: ObjectName,
        with patch: MetadataPatch,
        admit: Admission? = nil
    ) throws(StorageError)
        -> ObjectMetadata
    {
        try changing { () throws(StorageError) in
            let existing = try metadata(bucket, name)
            var object = existing
            patch.apply(to: &object)
            try ObjectMetadata.check(custom: object.metadata)
            object.metageneration += 1
            object.updated = clock()
            try admit?(existing, object)
            try catalog.commit(object, replacing: nil)
            return object
        }
    }

    /// A new version of `name` whose bytes are in `generation`'s file.
    func version(
        of name: ObjectName,
        in bucket: BucketName,
        generation: String,
        checksums: ObjectChecksums,
        fields: ObjectFields
    ) -> ObjectMetadata {
        var object = ObjectMetadata(
            bucket: bucket.value,
            name: name.value,
            generation: generation,
            size: checksums.size,
            md5Hash: checksums.md5Base64,
            crc32c: checksums.crc32cBase64,
            contentType: fields.contentType,
            time: clock(),
            downloadTokens: [Self.newDownloadToken()],
            metadata: fields.metadata
        )
        object.cacheControl = fields.cacheControl
        object.contentDisposition = fields.contentDisposition
        object.contentEncoding = fields.contentEncoding
        object.contentLanguage = fields.contentLanguage
        object.acl = fields.acl
        return object
    }

    /// Inside `changing`: makes `object` (its file in place) its name's live version, with
    /// `session`'s final state in the same batch when given; then the replaced version's file
    /// goes. If the commit fails, `object`'s file goes instead, or back to `session`, which stays
    /// active with its bytes (a finalize refused by a full disk can be repeated). In a cluster,
    /// a commit another node's change came before (`.superseded`) keeps the file: the change is
    /// made again.
    func commitVersion(_ object: ObjectMetadata, finishing session: ResumableSession? = nil) throws(StorageError) {
        let previous: ObjectMetadata?
        do throws(StorageError) {
            previous = try catalog.metadata(BucketName(object.bucket), ObjectName(object.name))
            try catalog.commit(object, replacing: previous, session: session)
        } catch {
            if let session {
                files.restoreSession(session.id, from: object.generation)
            } else if error.code != .superseded {
                files.remove(generation: object.generation)
            }
            throw error
        }
        if let previous, previous.generation != object.generation {
            files.remove(generation: previous.generation)
            discardShared(previous.generation)
        }
    }

    /// Runs a read and commit of the catalog with no other change in between: two uploads of
    /// one name each see the other's version as the one they replace, never the same one. In a
    /// cluster the catalog first catches up with the log, and `body` runs again (on the newer
    /// catalog) when another node's batch took the position its change was appended at.
    func changing<T>(_ body: () throws(StorageError) -> T) throws(StorageError) -> T {
        changes.lock()
        defer { changes.unlock() }
        guard catalog.replica.current != nil else { return try body() }
        for _ in 0..<Self.maxAppendAttempts {
            try catchUp()
            do throws(StorageError) {
                return try body()
            } catch  where error.code == .superseded {
                continue
            }
        }
        throw StorageError(.unavailable, "Other nodes kept changing the files first; retry.")
    }

    /// Runs `body` under the change lock, with no catch-up (`synchronize`, `replicate`).
    func locked<T>(_ body: () throws(StorageError) -> T) throws(StorageError) -> T {
        changes.lock()
        defer { changes.unlock() }
        return try body()
    }

    // MARK: Support

    /// A generation no upload had: later than the last one, at least the time in microseconds.
    /// In a cluster PostgreSQL hands it out, so no two nodes give the same one.
    func nextGeneration() throws(StorageError) -> String {
        let now = UInt64(max(0, clock() * 1000))
        let generation = lastGeneration.withLock { last -> UInt64 in
            last = max(now, last + 1)
            return last
        }
        guard let cluster = catalog.replica.current else { return String(generation) }
        let reserved: UInt64
        do {
            reserved = try cluster.bytes.reserveGeneration(atLeast: generation)
        } catch {
            throw StorageError.unavailable(error)
        }
        lastGeneration.withLock { $0 = max($0, reserved) }
        return String(reserved)
    }

    static func notFound(_ bucket: BucketName, _ name: ObjectName) -> StorageError {
        StorageError(.notFound, "No object '\(name)' in bucket '\(bucket)'.")
    }
}

/// An upload under way: its bytes stream into a part file and its MD5 and size are counted as
/// they come. Used by one caller at a time.
public final class ObjectUpload: @unchecked Sendable {
    let generation: String
    let part: PartFile
    let maxSize: UInt64
    /// What was received, counted as it is written.
    private let lanes = ChecksumLanes()

    init(generation: String, part: PartFile, maxSize: UInt64) {
        self.generation = generation
        self.part = part
        self.maxSize = maxSize
    }

    /// The bytes received so far.
    public var received: UInt64 { lanes.size }

    /// Appends `bytes` (`append(pieces:)` of one piece).
    /// - Throws: `StorageError` `.tooLarge` past the store's `maxObjectSize` (the upload is then
    ///   discarded: nothing of it stays on disk), `.io` when the disk refuses.
    public func append(_ bytes: UnsafeRawBufferPointer) throws(StorageError) {
        try append(pieces: [bytes])
    }

    /// Appends `pieces` in order, MD5 on a second thread (`ChecksumLanes`).
    /// - Throws: `StorageError` `.tooLarge` past the store's `maxObjectSize` (the upload is then
    ///   discarded: nothing of it stays on disk), `.io` when the disk refuses.
    public func append(pieces: [UnsafeRawBufferPointer]) throws(StorageError) {
        let total = pieces.reduce(UInt64(0)) { $0 + UInt64($1.count) }
        guard lanes.size + total <= maxSize else {
            part.discard()
            throw StorageError(.tooLarge, "The object is larger than the \(maxSize) bytes this server accepts.")
        }
        do {
            try lanes.write(pieces) { piece throws(StorageError) in try part.write(piece) }
        } catch {
            part.discard()
            throw error
        }
    }

    /// `append(pieces:)` of an array: MD5 beside the write (a batch of an upload's bytes).
    public func append(_ bytes: [UInt8]) throws(StorageError) {
        try bytes.withStorageBytes { bytes throws(StorageError) in try append(pieces: [bytes]) }
    }

    /// Removes what was received (a cancelled or failed upload).
    public func cancel() { part.discard() }

    /// What was received, counted.
    var checksums: ObjectChecksums { lanes.checksums }
}

/// What an upload sets besides its bytes (the SDK's metadata part, or a media upload's
/// `Content-Type`).
public struct ObjectFields: Sendable, Equatable, Codable {
    public var contentType: String?
    public var metadata: [String: String]
    public var cacheControl: String?
    public var contentDisposition: String?
    public var contentEncoding: String?
    public var contentLanguage: String?
    /// The JSON API's `acl` (or its `predefinedAcl`'s list); the client API sets none.
    public var acl: [ObjectACLEntry]?

    public init(
        contentType: String? = nil,
        metadata: [String: String] = [:],
        cacheControl: String? = nil,
        contentDisposition: String? = nil,
        contentEncoding: String? = nil,
        contentLanguage: String? = nil
    ) {
        self.contentType = contentType
        self.metadata = metadata
        self.cacheControl = cacheControl
        self.contentDisposition = contentDisposition
        self.contentEncoding = contentEncoding
        self.contentLanguage = contentLanguage
    }

    private enum CodingKeys: String, CodingKey {
        case contentType, metadata, cacheControl, contentDisposition, contentEncoding, contentLanguage, acl
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        contentType = try container.decodeIfPresent(String.self, forKey: .contentType)
        metadata = try container.decodeIfPresent([String: String].self, forKey: .metadata) ?? [:]
        cacheControl = try container.decodeIfPresent(String.self, forKey: .cacheControl)
        contentDisposition = try container.decodeIfPresent(String.self, forKey: .contentDisposition)
        contentEncoding = try container.decodeIfPresent(String.self, forKey: .contentEncoding)
        contentLanguage = try container.decodeIfPresent(String.self, forKey: .contentLanguage)
        acl = try container.decodeIfPresent([ObjectACLEntry].self, forKey: .acl)
    }
}

/// The resumable sessions' counts, read and changed only under the store's change lock.
final class SessionCounts: @unchecked Sendable {
    var active = 0
    var finished = 0
    /// When a start at the cap last looked for expired sessions (milliseconds since 1970).
    var lastScan = -Double.infinity
}
