import Dispatch
import HearthCluster
import HearthCore
import HearthDatabase
import Logging
import Synchronization

/// The served namespaces' snapshots (docs/cluster.md, "Snapshots"): the owner of a namespace
/// whose changelog grew `entries` past its newest snapshot reads its local copy as one LevelDB
/// snapshot, stores it in PostgreSQL chunk by chunk, publishes it once the changelog shows the
/// position it holds was committed, and drops the changelog up to there. A node whose copy is
/// behind the newest snapshot (or has none) installs it before it replays the rest.
final class ClusterSnapshots: Sendable {
    let directory: ClusterDirectory
    /// Changelog entries past the newest snapshot that make the owner take another.
    let entries: Int
    private let logger: Logger
    /// The newest snapshot's position per namespace, as far as this node knows.
    private let newest = Mutex<[String: Int64]>([:])
    /// One snapshot is taken at a time on a node.
    private let taking = Mutex(false)

    init(directory: ClusterDirectory, entries: Int, logger: Logger) {
        self.directory = directory
        self.entries = entries
        self.logger = logger
    }

    /// Takes, in the background, a snapshot of each namespace of `leases` whose copy is
    /// `entries` past its newest snapshot, unless one is being taken already.
    func takeIfDue(
        _ leases: [NamespaceLease],
        in database: Database,
        stillHeld: @escaping @Sendable (NamespaceLease) -> Bool
    ) {
        guard !leases.isEmpty else { return }
        let claimed = taking.withLock { taking -> Bool in
            if taking { return false }
            taking = true
            return true
        }
        guard claimed else { return }
        Task {
            defer { taking.withLock { $0 = false } }
            for lease in leases where stillHeld(lease) {
                do {
                    let name = lease.namespace
                    guard let local = try database.replicationPosition(of: name) else { continue }
                    let last: Int64
                    if let known = newest.withLock({ $0[name] }) {
                        last = known
                    } else {
                        last = try await directory.snapshotHead(of: name)?.lsn ?? 0
                        newest.withLock { $0[name] = last }
                    }
                    guard Int64(local.lsn) - last >= Int64(entries) else { continue }
                    try await take(name, in: database)
                } catch {
                    logger.warning(
                        "namespace snapshot failed",
                        metadata: ["hearth.ns": "\(lease.namespace)", "hearth.error": "\(error)"]
                    )
                }
            }
        }
    }

    /// Stores the local copy of `name` as a snapshot, publishes it when the changelog shows its
    /// position committed, and drops the changelog up to it.
    private func take(_ name: String, in database: Database) async throws {
        let started = ContinuousClock.now
        // Off the event loops and the cooperative pool: one LevelDB snapshot read in chunks, each
        // stored before the next is read (a chunk of memory at a time).
        let (position, chunks) = try await withCheckedThrowingContinuation {
            (continuation: CheckedContinuation<(ReplicationPosition?, Int32), any Error>) in
            DispatchQueue.global(qos: .utility).async { [directory] in
                do {
                    var chunks: Int32 = 0
                    let position = try database.snapshotReplica(of: name) { position, chunk in
                        try directory.writeSnapshotChunk(
                            namespace: name,
                            lsn: Int64(position.lsn),
                            chunk: chunks,
                            data: chunk
                        ).wait()
                        chunks += 1
                    }
                    continuation.resume(returning: (position, chunks))
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        }
        guard let position else { return }
        let lsn = Int64(position.lsn)
        guard
            try await directory.publishSnapshot(namespace: name, lsn: lsn, epoch: Int64(position.epoch), chunks: chunks)
        else {
            // Its last round's commit is still in flight (or failed): the next beat tries again.
            return
        }
        newest.withLock { $0[name] = lsn }
        try await directory.compact(namespace: name, through: lsn)
        logger.info(
            "namespace snapshot taken",
            metadata: [
                "hearth.ns": "\(name)", "hearth.cluster.lsn": "\(lsn)", "hearth.chunks": "\(chunks)",
                "hearth.duration": "\(ContinuousClock.now - started)",
            ]
        )
    }

    /// Replaces the local copy of `name` (not open) with the snapshot `head`.
    func install(_ head: SnapshotHead, of name: String, into database: Database) async throws {
        try database.discardReplica(name)
        for chunk in 0..<head.chunks {
            guard let data = try await directory.snapshotChunk(namespace: name, lsn: head.lsn, chunk: chunk) else {
                throw ClusterError.inconsistent(
                    "the snapshot of '\(name)' at \(head.lsn) lost chunk \(chunk) to a newer one; retry"
                )
            }
            try database.applySnapshotChunk(data, to: name)
        }
        try database.setReplicationPosition(
            ReplicationPosition(lsn: UInt64(head.lsn), epoch: UInt64(head.epoch)),
            of: name
        )
        newest.withLock { $0[name] = max($0[name] ?? 0, head.lsn) }
        logger.notice(
            "namespace snapshot installed",
            metadata: ["hearth.ns": "\(name)", "hearth.cluster.lsn": "\(head.lsn)", "hearth.chunks": "\(head.chunks)"]
        )
    }
}
