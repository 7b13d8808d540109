import Foundation
public import HearthStore
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A cluster's storage (`hearth serve --cluster`): this node's catalog is a copy of the
/// cluster's storage log (`SharedLog`, stream `storage`), and the objects' bytes are in PostgreSQL
/// (`SharedObjectBytes`), this node's files a cache of them. A change catches the catalog up,
/// is appended at the next position (another node's append there first: caught up and made
/// again), then applied here; an upload's bytes are in PostgreSQL before its metadata is
/// appended; a version's bytes there go after the change that kills it. Resumable sessions stay
/// this node's (their ids begin with its tag; other nodes forward their requests here).
extension ObjectStore {
    /// How often a change whose position another node took first is made again.
    static let maxAppendAttempts = 32
    /// The most bytes of one piece of an object in PostgreSQL: 1 MiB.
    public static let sharedPieceBytes = 1 << 20
    /// How long bytes in PostgreSQL that no object names are kept before the sweep at start
    /// removes them (an upload under way between its bytes and its metadata): 1 hour.
    public static let sharedOrphanGrace = 3600

    /// Whether the store is a cluster's (`replicate`).
    public var isReplicated: Bool { catalog.replica.current != nil }

    /// Whether the catalog is a cluster node's copy (it holds a position in a cluster's log),
    /// whether or not it follows it now.
    public var isClusterCopy: Bool { (try? catalog.storedPosition()) != nil }

    /// What `replicate` found.
    public struct ReplicationStart: Sendable, Equatable {
        /// Objects this node's catalog seeded an empty cluster with (their bytes too).
        public var seeded: Int
        /// Whether this node's objects were dropped: they were a copy of another cluster's
        /// log, or the cluster had objects already.
        public var cleared: Bool
        /// Files of generations the cluster does not name, removed.
        public var swept: Int
    }

    /// Makes the store the cluster's: the catalog becomes a copy of `log`, the bytes are in
    /// `bytes`. A copy of another log (its last position is not there) is cleared; a catalog
    /// that never was a copy seeds an empty log with its objects, their bytes first (a single
    /// node that joins a new cluster keeps its files), else it is cleared. Then it catches up
    /// (from the log's snapshot when the entries it needs are gone), and this node's files the
    /// cluster does not name go (a cleared copy's, all of them).
    /// - Parameters:
    ///   - sessionTag: begins this node's resumable session ids (hexadecimal digits).
    ///   - snapshotEntries: every this many entries a node stores the catalog as the log's
    ///     snapshot, and the log drops what it no longer needs (`SharedLogFollower`).
    public func replicate(
        through log: any SharedLog,
        bytes: any SharedObjectBytes,
        sessionTag: String,
        snapshotEntries: Int64 = SharedLogFollower.defaultSnapshotEntries
    ) throws(StorageError) -> ReplicationStart {
        try locked { () throws(StorageError) -> ReplicationStart in
            var position: Int64 = 0
            var start = ReplicationStart(seeded: 0, cleared: false, swept: 0)
            let follower = SharedLogFollower(log: log, snapshotEntries: snapshotEntries)
            do {
                let stored = try catalog.storedPosition()
                let rows = stored == nil ? try catalog.sharedRows() : []
                let generations = rows.compactMap { ObjectCatalog.generation(ofKey: $0.key) }
                let seed = { () throws -> Bool in
                    for generation in generations {
                        try self.publish(self.files.path(of: generation), as: generation, to: bytes)
                    }
                    // Generations handed out from now on pass every seeded one.
                    let highest = generations.compactMap(UInt64.init).max() ?? 0
                    _ = try bytes.reserveGeneration(atLeast: highest + 1)
                    // When another node seeded first, the bytes sent go with the sweep.
                    return try log.append(SharedLogBatch.encode(rows), at: 1)
                }
                switch try follower.start(stored: stored, hasRows: !rows.isEmpty, seed: seed) {
                case .follow(let stored):
                    position = stored
                case .seeded:
                    try catalog.applyReplicated([], at: 1)
                    position = 1
                    start.seeded = generations.count
                case .clear:
                    try catalog.clearShared()
                    start.cleared = true
                }
            } catch let error as StorageError {
                throw error
            } catch {
                throw StorageError.unavailable(error)
            }
            catalog.replica.start(
                CatalogReplica.State(
                    follower: follower,
                    bytes: bytes,
                    position: position,
                    sessionTag: sessionTag
                )
            )
            try catchUp()
            // A cleared copy's files are not the cluster's bytes, even under a generation the
            // cluster names (another node's clock gave it too): all of them go.
            let (catalog, cleared) = (self.catalog, start.cleared)
            start.swept = try files.sweep { generation throws(StorageError) in
                guard !cleared else { return false }
                return try catalog.isLive(generation: generation)
            }
            return start
        }
    }

    /// Applies what other nodes changed since the last catch-up (a no-op outside a cluster).
    /// Every storage request calls it first, so it sees every change acknowledged before it
    /// began; the node calls it a few times a second besides. A catch-up that started after
    /// this call did serves it too.
    public func synchronize() throws(StorageError) {
        guard isReplicated else { return }
        let asked = ContinuousClock.now
        try locked { () throws(StorageError) in
            if lastCatchUp.withLock({ $0 }) > asked { return }
            try catchUp()
        }
    }

    /// Under the change lock: applies every batch after this copy's position, in order (or the
    /// difference the log's snapshot makes, when the entries it needs are gone); the files of
    /// generations a batch kills go.
    func catchUp() throws(StorageError) {
        guard let cluster = catalog.replica.current else { return }
        lastCatchUp.withLock { $0 = .now }
        do {
            _ = try cluster.follower.catchUp(from: cluster.position, rows: catalog.sharedRows) {
                changes,
                position in
                try catalog.applyReplicated(changes, at: position)
                for change in changes where change.value == nil {
                    if let generation = ObjectCatalog.generation(ofKey: change.key) {
                        files.remove(generation: generation)
                    }
                }
            }
        } catch let error as StorageError {
            throw error
        } catch let error as SharedLogFollower.Unreadable {
            throw StorageError(
                .io,
                "The cluster's storage log has no readable batch at position \(error.position); this node cannot serve files."
            )
        } catch {
            throw StorageError.unavailable(error)
        }
    }

    /// Waits for a snapshot of the storage log being stored in the background (tests).
    public func waitForSnapshots() {
        catalog.replica.current?.follower.waitForSnapshots()
    }

    /// The file holding `object`'s bytes on this node. In a cluster a missing one (another
    /// node's upload) is first fetched from PostgreSQL piece by piece into a file here, kept as
    /// a cache; outside a cluster it is `path(of:)`.
    /// - Throws: `.notFound` when the bytes are gone (the version was deleted meanwhile),
    ///   `.unavailable` when PostgreSQL did not answer.
    public func localPath(of object: ObjectMetadata) throws(StorageError) -> String {
        let path = files.path(of: object.generation)
        guard let cluster = catalog.replica.current, access(path, F_OK) != 0 else { return path }
        let temporary = files.temporary + "/" + object.generation + ".fetch-" + UUID().uuidString
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw ObjectFiles.failure("create", temporary) }
        let part = PartFile(descriptor: descriptor, path: temporary)
        do throws(StorageError) {
            var received: UInt64 = 0
            var piece = 0
            while true {
                let bytes: [UInt8]?
                do {
                    bytes = try cluster.bytes.read(generation: object.generation, piece: piece)
                } catch {
                    throw StorageError.unavailable(error)
                }
                guard let bytes else { break }
                try bytes.withStorageBytes { bytes throws(StorageError) in try part.write(bytes) }
                received += UInt64(bytes.count)
                piece += 1
            }
            guard received == object.size else {
                throw StorageError(.notFound, "The object '\(object.name)' is gone.")
            }
            part.close()
            // Under the change lock, as a catch-up removes the files of versions it kills: a
            // version killed while it was fetched leaves no file behind.
            try locked { () throws(StorageError) in
                guard try catalog.isLive(generation: object.generation) else {
                    throw StorageError(.notFound, "The object '\(object.name)' is gone.")
                }
                guard rename(temporary, path) == 0 else { throw ObjectFiles.failure("rename", temporary) }
            }
            return path
        } catch {
            part.discard()
            throw error
        }
    }

    /// In a cluster: sends `generation`'s file to PostgreSQL (a no-op outside a cluster).
    func publishShared(_ generation: String) throws(StorageError) {
        try publishShared(path: files.path(of: generation), as: generation)
    }

    /// In a cluster: sends the file at `path` to PostgreSQL as `generation`'s bytes (a no-op
    /// outside a cluster).
    func publishShared(path: String, as generation: String) throws(StorageError) {
        guard let cluster = catalog.replica.current else { return }
        try publish(path, as: generation, to: cluster.bytes)
    }

    /// Sends the file at `path` to `bytes` as `generation`'s, piece by piece (never whole in
    /// memory).
    func publish(_ path: String, as generation: String, to bytes: any SharedObjectBytes) throws(StorageError) {
        guard let file = FileHandle(forReadingAtPath: path) else { throw ObjectFiles.failure("open", path) }
        defer { try? file.close() }
        var piece = 0
        while true {
            let data: Data
            do {
                data = try file.read(upToCount: Self.sharedPieceBytes) ?? Data()
            } catch {
                throw ObjectFiles.failure("read", path)
            }
            if data.isEmpty { return }
            do {
                try bytes.write(Array(data), generation: generation, piece: piece)
            } catch {
                throw StorageError.unavailable(error)
            }
            piece += 1
        }
    }

    /// In a cluster: the bytes of `source`'s generation given to `generation` in PostgreSQL,
    /// and here a hard link when this node has the file; outside a cluster the hard link.
    func share(_ source: String, as generation: String) throws(StorageError) {
        guard let cluster = catalog.replica.current else {
            try files.share(generation: source, as: generation)
            return
        }
        do {
            try cluster.bytes.copy(generation: source, to: generation)
        } catch {
            throw StorageError.unavailable(error)
        }
        try? files.share(generation: source, as: generation)
    }

    /// In a cluster: removes `generation`'s bytes from PostgreSQL, best effort (what is left
    /// goes with the sweep at a start).
    func discardShared(_ generation: String) {
        guard let cluster = catalog.replica.current else { return }
        try? cluster.bytes.delete(generation: generation)
    }

    /// In a cluster: removes the bytes in PostgreSQL that no object names and nothing wrote for
    /// `seconds` (uploads that died between their bytes and their metadata, versions whose
    /// removal failed). Returns how many generations went.
    public func sweepShared(untouchedFor seconds: Int = ObjectStore.sharedOrphanGrace) throws(StorageError) -> Int {
        guard let cluster = catalog.replica.current else { return 0 }
        let candidates: [String]
        do {
            candidates = try cluster.bytes.generations(untouchedFor: seconds)
        } catch {
            throw StorageError.unavailable(error)
        }
        guard !candidates.isEmpty else { return 0 }
        return try locked { () throws(StorageError) -> Int in
            try catchUp()
            var removed = 0
            for generation in candidates where try !catalog.isLive(generation: generation) {
                discardShared(generation)
                removed += 1
            }
            return removed
        }
    }

    /// In a cluster: the id of a new resumable session, its node's tag first.
    func newSessionID() -> String {
        var random = SystemRandomNumberGenerator()
        guard let tag = catalog.replica.current?.sessionTag else {
            return (0..<4).map { _ in String(random.next() as UInt64, radix: 16) }.joined(separator: "-")
        }
        return ([tag] + (0..<2).map { _ in String(random.next() as UInt64, radix: 16) }).joined(separator: "-")
    }

    /// The tag of the node holding session `id` (its first group, when it is a node's tag).
    public static func sessionTag(of id: String) -> String? {
        guard let first = id.split(separator: "-").first, first.count == 32 else { return nil }
        return String(first)
    }

    /// A node's session tag: its id's hexadecimal digits (a UUID's 32), nil when the id is not
    /// one.
    public static func sessionTag(nodeID: String) -> String? {
        let tag = nodeID.lowercased().filter { $0 != "-" }
        guard tag.count == 32, tag.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }) else {
            return nil
        }
        return tag
    }
}
