import Foundation
import Synchronization

/// Resumable uploads: a session started with the object's name and fields, chunks appended at
/// the offset the session has reached, a query of that offset (after a dropped connection or a
/// restart), a finalize that makes the object (answered again to a repeated finalize), a cancel.
extension ObjectStore {
    /// How long a session lives after its start: 7 days.
    public static let sessionLifetime: Double = 7 * 24 * 3600 * 1000
    /// How long a finished (final or cancelled) session is kept after its start, to answer a
    /// repeated finalize or query: 1 hour.
    public static let finishedSessionLifetime: Double = 3600 * 1000
    /// The most active sessions unless configured; a start past it is refused until some finish
    /// or expire.
    public static let defaultMaxSessions = 10_000
    /// The most bytes unfinished resumable uploads hold together unless configured: 20 GiB (four
    /// objects of the largest size by default). Part files are the only disk a caller can fill
    /// without finishing anything; past this a chunk is refused (429) until uploads finish,
    /// are cancelled or expire, so the disk the database needs stays free.
    public static let defaultMaxSessionBytes: UInt64 = 20 << 30
    /// How often, at most, a start at the cap looks for expired sessions to remove: 1 minute.
    static let capScanInterval: Double = 60 * 1000

    /// Starts a session for `name` in `bucket`.
    /// - Throws: `StorageError` `.tooLarge` when `expectedSize` passes `maxObjectSize`,
    ///   `.tooManySessions` past `maxSessions` active ones (expired ones are removed first).
    public func startResumable(
        _ bucket: BucketName,
        _ name: ObjectName,
        fields: ObjectFields,
        expectedSize: UInt64?,
        startedByAdmin: Bool = true
    ) throws(StorageError) -> ResumableSession {
        try ObjectMetadata.check(custom: fields.metadata)
        if let expectedSize, expectedSize > maxObjectSize {
            throw StorageError(.tooLarge, "The object is larger than the \(maxObjectSize) bytes this server accepts.")
        }
        let id = newSessionID()
        let session = ResumableSession(
            id: id,
            bucket: bucket.value,
            name: name.value,
            fields: fields,
            expectedSize: expectedSize,
            startedAt: clock(),
            status: .active,
            result: nil,
            startedByAdmin: startedByAdmin
        )
        try changing { () throws(StorageError) in
            // At the cap, expired sessions are looked for at most once a minute: a scan reads
            // every session, and a client retrying past the cap must not make each refusal cost it.
            if sessionCounts.active >= maxSessions, clock() - sessionCounts.lastScan >= Self.capScanInterval {
                sessionCounts.lastScan = clock()
                let kept = try expireSessions(try catalog.sessions())
                sessionCounts.active = kept.count { $0.status == .active }
            }
            if sessionCounts.active >= maxSessions {
                throw StorageError(
                    .tooManySessions,
                    "Too many resumable uploads are open; finish or cancel some first."
                )
            }
            try files.createSession(id)
            try catalog.save(session, id: id)
            sessionCounts.active += 1
        }
        return session
    }

    /// Session `id` and the bytes it has received.
    /// - Throws: `StorageError` `.notFound` for an unknown or expired session.
    public func resumable(_ id: String) throws(StorageError) -> (session: ResumableSession, received: UInt64) {
        guard Self.isSessionID(id), let session = try catalog.session(id), !isExpired(session) else {
            throw StorageError(.notFound, "No such upload session; start the upload again.")
        }
        return (session, session.result?.size ?? files.sessionSize(id) ?? 0)
    }

    /// The part file of active session `id` for bytes starting at `offset`, which must be what
    /// it has received (`X-Goog-Upload-Offset`).
    /// - Throws: `StorageError` `.notFound`, `.invalidOffset` for another offset (nothing is
    ///   written), `.invalidMetadata` for a session that is no longer active.
    public func continueResumable(_ id: String, at offset: UInt64) throws(StorageError) -> ResumableChunk {
        let (session, received) = try resumable(id)
        guard session.status == .active else {
            throw StorageError(.invalidMetadata, "The upload is \(session.status.rawValue); no more bytes are taken.")
        }
        guard offset == received else {
            throw StorageError(
                .invalidOffset,
                "The upload has \(received) bytes; send the next chunk at offset \(received), not \(offset)."
            )
        }
        // The checksums go on from the previous chunk's (from nothing at offset 0); without
        // them (a restart, a chunk that failed part-way) the finalize reads the file.
        let counted = runningChecksums.take(id)
        let lanes: ChecksumLanes? =
            if let counted, counted.size == received { ChecksumLanes(from: counted) } else if received == 0 {
                ChecksumLanes()
            } else { nil }
        return ResumableChunk(
            part: try files.appendSession(id),
            received: received,
            maxSize: maxObjectSize,
            announced: session.expectedSize,
            lanes: lanes,
            budget: sessionBytes
        ) { [runningChecksums] counted in runningChecksums.keep(counted, for: id) }
    }

    /// Makes the object of session `id` from the bytes it received; a session already final
    /// answers its object again.
    /// - Throws: `StorageError` `.notFound`, `.incomplete` when the start announced more bytes
    ///   than were received (the session stays active), `.invalidMetadata` when cancelled.
    /// `admit` judges the object it would make (see `finish`); when it throws, the session is
    /// cancelled and its bytes go.
    public func finalizeResumable(_ id: String, admit: Admission? = nil) throws(StorageError) -> ObjectMetadata {
        // In a cluster the bytes go to PostgreSQL first, outside the change lock.
        let prepared = try prepareSharedFinalize(id)
        var committed = false
        defer {
            if let prepared, !committed { discardShared(prepared.generation) }
        }
        return try changing { () throws(StorageError) in
            var (session, received) = try resumable(id)
            switch session.status {
            case .final: if let result = session.result { return result }
            case .cancelled: throw StorageError(.invalidMetadata, "The upload was cancelled.")
            case .active: break
            }
            if let expected = session.expectedSize, received != expected {
                throw StorageError(
                    .incomplete,
                    "The upload has \(received) of its \(expected) bytes; send the rest before finalizing."
                )
            }
            let counted = runningChecksums.take(id)
            let checksums =
                if let counted, counted.size == received { counted } else {
                    try Self.checksums(of: files.sessionPath(id))
                }
            let generation: String
            if let prepared {
                guard prepared.size == received else {
                    throw StorageError(
                        .invalidOffset,
                        "The upload received bytes while it was being finalized; finalize it again."
                    )
                }
                generation = prepared.generation
            } else {
                generation = try nextGeneration()
                try publishShared(path: files.sessionPath(id), as: generation)
            }
            let name = try ObjectName(session.name)
            let bucket = try BucketName(session.bucket)
            let object = version(
                of: name,
                in: bucket,
                generation: generation,
                checksums: checksums,
                fields: session.fields
            )
            if let admit {
                do throws(StorageError) {
                    try admit(try catalog.metadata(bucket, name), object)
                } catch {
                    session.status = .cancelled
                    try catalog.save(session, id: id)
                    files.removeSession(id)
                    sessionBytes.release(received)
                    try finished()
                    throw error
                }
            }
            try files.installSession(id, as: generation)
            session.status = .final
            session.result = object
            try commitVersion(object, finishing: session)
            committed = true
            sessionBytes.release(received)
            try finished()
            return object
        }
    }

    /// In a cluster: the bytes of active, complete session `id` sent to PostgreSQL under a new
    /// generation before its finalize takes the change lock (a large upload's bytes never hold
    /// other changes back). Nil outside a cluster, or when the finalize will make no object.
    func prepareSharedFinalize(_ id: String) throws(StorageError) -> (generation: String, size: UInt64)? {
        guard isReplicated else { return nil }
        let (session, received) = try resumable(id)
        guard session.status == .active, session.expectedSize.map({ $0 == received }) ?? true else { return nil }
        let generation = try nextGeneration()
        do throws(StorageError) {
            try publishShared(path: files.sessionPath(id), as: generation)
        } catch {
            discardShared(generation)
            throw error
        }
        return (generation, received)
    }

    /// Cancels active session `id`: its bytes go.
    /// - Throws: `StorageError` `.notFound`, `.invalidMetadata` for a final session.
    public func cancelResumable(_ id: String) throws(StorageError) {
        try changing { () throws(StorageError) in
            var (session, received) = try resumable(id)
            switch session.status {
            case .final: throw StorageError(.invalidMetadata, "The upload is already final; delete the object instead.")
            case .cancelled: return
            case .active: break
            }
            session.status = .cancelled
            try catalog.save(session, id: id)
            files.removeSession(id)
            sessionBytes.release(received)
            _ = runningChecksums.take(id)
            try finished()
        }
    }

    // MARK: Support

    func isExpired(_ session: ResumableSession) -> Bool {
        Self.isExpired(session, now: clock())
    }

    static func isExpired(_ session: ResumableSession, now: Double) -> Bool {
        now - session.startedAt > (session.status == .active ? sessionLifetime : finishedSessionLifetime)
    }

    /// A session stopped being active; every 1,000th time, the finished ones past their hour go.
    private func finished() throws(StorageError) {
        sessionCounts.active -= 1
        sessionCounts.finished += 1
        if sessionCounts.finished % 1_000 == 0 { _ = try expireSessions(try catalog.sessions()) }
    }

    func expireSessions(_ sessions: [ResumableSession]) throws(StorageError) -> [ResumableSession] {
        let expiring = sessions.filter { $0.status == .active && isExpired($0) }
        let held = expiring.reduce(UInt64(0)) { $0 + (files.sessionSize($1.id) ?? 0) }
        let kept = try Self.expireSessions(sessions, catalog: catalog, files: files, now: clock())
        sessionBytes.release(held)
        runningChecksums.keepOnly(Set(kept.filter { $0.status == .active }.map(\.id)))
        return kept
    }

    /// Removes expired sessions and their bytes; returns the others.
    static func expireSessions(
        _ sessions: [ResumableSession],
        catalog: ObjectCatalog,
        files: ObjectFiles,
        now: Double
    ) throws(StorageError) -> [ResumableSession] {
        var kept: [ResumableSession] = []
        for session in sessions {
            if isExpired(session, now: now) {
                try catalog.save(nil, id: session.id)
                files.removeSession(session.id)
            } else {
                kept.append(session)
            }
        }
        return kept
    }

    /// At open: expired sessions go, and part files of no live session.
    /// - Returns: how many sessions and files were removed, and how many sessions are active.
    static func sweepSessions(
        catalog: ObjectCatalog,
        files: ObjectFiles,
        now: Double
    ) throws(StorageError) -> (removed: Int, active: Int, bytes: UInt64) {
        let all = try catalog.sessions()
        let kept = try expireSessions(all, catalog: catalog, files: files, now: now)
        let ids = Set(kept.filter { $0.status == .active }.map(\.id))
        let bytes = ids.reduce(UInt64(0)) { $0 + (files.sessionSize($1) ?? 0) }
        return (all.count - kept.count + files.sweepSessions { ids.contains($0) }, ids.count, bytes)
    }

    static func isSessionID(_ id: String) -> Bool {
        !id.isEmpty && id.utf8.count <= 80
            && id.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) || $0 == 0x2D }
    }

    /// The checksums and size of the file at `path`, read in 1 MiB pieces.
    static func checksums(of path: String) throws(StorageError) -> ObjectChecksums {
        guard let file = FileHandle(forReadingAtPath: path) else { throw ObjectFiles.failure("open", path) }
        defer { try? file.close() }
        var checksums = ObjectChecksums()
        while true {
            let data: Data
            do { data = try file.read(upToCount: 1 << 20) ?? Data() } catch { throw ObjectFiles.failure("read", path) }
            if data.isEmpty { break }
            data.withUnsafeBytes { checksums.update($0) }
        }
        return checksums
    }
}

/// Bytes of one resumable chunk request, appended to the session's part file as they arrive,
/// their checksums counted on from the previous chunk's when those are known.
public final class ResumableChunk: @unchecked Sendable {
    let part: PartFile
    /// What the session has received, this chunk included so far.
    public private(set) var received: UInt64
    let maxSize: UInt64
    /// The size the start announced, if any.
    let announced: UInt64?
    /// The checksums of every byte the session holds; nil when not known (the finalize reads
    /// the file).
    let lanes: ChecksumLanes?
    /// Keeps the counted checksums for the next chunk or the finalize.
    let keep: @Sendable (ObjectChecksums) -> Void
    /// The bytes all unfinished uploads hold (nil: unbounded).
    let budget: SessionBytes?

    init(
        part: PartFile,
        received: UInt64,
        maxSize: UInt64,
        announced: UInt64?,
        lanes: ChecksumLanes? = nil,
        budget: SessionBytes? = nil,
        keep: @escaping @Sendable (ObjectChecksums) -> Void = { _ in }
    ) {
        self.part = part
        self.received = received
        self.maxSize = maxSize
        self.announced = announced
        self.lanes = lanes
        self.budget = budget
        self.keep = keep
    }

    /// Appends `pieces` in order.
    /// - Throws: `StorageError` `.tooLarge` past the store's limit, `.invalidOffset` past the
    ///   size the start announced, `.tooManySessions` when unfinished uploads hold all the bytes
    ///   they may (in each case nothing of `pieces` is written, so the session can still be
    ///   finished with the right bytes), `.io` when the disk refuses.
    public func append(pieces: [UnsafeRawBufferPointer]) throws(StorageError) {
        let total = pieces.reduce(UInt64(0)) { $0 + UInt64($1.count) }
        let after = received + total
        // The announced size first: it is never above the limit (the start refuses that).
        if let announced, after > announced {
            throw StorageError(
                .invalidOffset,
                "The upload announced \(announced) bytes and has \(received); this chunk would take it past them."
            )
        }
        guard after <= maxSize else {
            throw StorageError(.tooLarge, "The object is larger than the \(maxSize) bytes this server accepts.")
        }
        if let budget, !budget.reserve(total) {
            throw StorageError(
                .tooManySessions,
                "Unfinished uploads hold \(budget.limit) bytes, all this server keeps for them; finish or cancel some, or try again later."
            )
        }
        let before = received
        do {
            if let lanes {
                try lanes.write(pieces) { piece throws(StorageError) in
                    try part.write(piece)
                    received += UInt64(piece.count)
                }
            } else {
                for piece in pieces {
                    try part.write(piece)
                    received += UInt64(piece.count)
                }
            }
        } catch {
            // What the disk did not take holds nothing.
            budget?.release(total - (received - before))
            throw error
        }
    }

    /// `append(pieces:)` of one piece.
    public func append(_ bytes: UnsafeRawBufferPointer) throws(StorageError) {
        try append(pieces: [bytes])
    }

    /// `append(_:)` of an array.
    public func append(_ bytes: [UInt8]) throws(StorageError) {
        try bytes.withStorageBytes { bytes throws(StorageError) in try append(bytes) }
    }

    /// Closes the part file (the chunk's request is over) and keeps the checksums when they
    /// describe every byte written.
    public func close() {
        part.close()
        if let lanes, lanes.isValid, lanes.size == received { keep(lanes.checksums) }
    }
}

/// The bytes unfinished resumable uploads hold, within a limit: reserved before a chunk's bytes
/// are written, released when the upload finishes, is cancelled or expires.
final class SessionBytes: Sendable {
    let limit: UInt64
    private let held: Mutex<UInt64>

    init(limit: UInt64, held: UInt64) {
        self.limit = limit
        self.held = Mutex(held)
    }

    /// Counts `bytes` in when they fit within the limit.
    func reserve(_ bytes: UInt64) -> Bool {
        held.withLock { held in
            guard held + bytes <= limit else { return false }
            held += bytes
            return true
        }
    }

    /// Counts `bytes` out.
    func release(_ bytes: UInt64) {
        held.withLock { $0 -= min($0, bytes) }
    }
}
