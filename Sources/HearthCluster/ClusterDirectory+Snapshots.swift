public import NIOCore
import PostgresNIO

/// A namespace's snapshot in PostgreSQL: its state at one changelog position, in chunks
/// (`hearth_snapshots`), made visible by its head (`hearth_snapshot_heads`) once whole and
/// checked against the changelog; the changelog up to it then goes (`compact`).
public struct SnapshotHead: Sendable, Equatable {
    public let lsn: Int64
    public let epoch: Int64
    public let chunks: Int32

    public init(lsn: Int64, epoch: Int64, chunks: Int32) {
        self.lsn = lsn
        self.epoch = epoch
        self.chunks = chunks
    }
}

extension ClusterDirectory {
    /// The newest snapshot of `namespace`, if it has one (on the control link: a takeover asks,
    /// and must not wait behind a chunk).
    public func snapshotHead(of namespace: String) async throws -> SnapshotHead? {
        let rows = try await control.query(
            "SELECT lsn, epoch, chunks FROM hearth_snapshot_heads WHERE ns = \(namespace)"
        ).get()
        return try rows.rows.first.map { row in
            let (lsn, epoch, chunks) = try row.decode((Int64, Int64, Int32).self)
            return SnapshotHead(lsn: lsn, epoch: epoch, chunks: chunks)
        }
    }

    /// Stores chunk `chunk` of the snapshot of `namespace` at `lsn` (again: the same bytes).
    public func writeSnapshotChunk(namespace: String, lsn: Int64, chunk: Int32, data: [UInt8]) -> EventLoopFuture<Void>
    {
        objectLink.query(
            """
            INSERT INTO hearth_snapshots (ns, lsn, chunk, data)
            VALUES (\(namespace), \(lsn), \(chunk), \(ByteBuffer(bytes: data)))
            ON CONFLICT (ns, lsn, chunk) DO UPDATE SET data = EXCLUDED.data
            """
        ).map { _ in }
    }

    /// Chunk `chunk` of the snapshot of `namespace` at `lsn`; nil when it is gone (a newer
    /// snapshot replaced it).
    public func snapshotChunk(namespace: String, lsn: Int64, chunk: Int32) async throws -> [UInt8]? {
        let rows = try await objectLink.query(
            "SELECT data FROM hearth_snapshots WHERE ns = \(namespace) AND lsn = \(lsn) AND chunk = \(chunk)"
        ).get()
        return try rows.rows.first.map { Array(buffer: try $0.decode(ByteBuffer.self)) }
    }

    /// Makes the snapshot of `namespace` at `lsn` (its `chunks` stored) the namespace's newest,
    /// only when the changelog's entry at `lsn` is `epoch`'s (the state it holds was
    /// committed) and it is newer than the one there; false otherwise (its chunks are then
    /// removed).
    public func publishSnapshot(namespace: String, lsn: Int64, epoch: Int64, chunks: Int32) async throws -> Bool {
        let published = try await control.query(
            """
            INSERT INTO hearth_snapshot_heads (ns, lsn, epoch, chunks)
            SELECT \(namespace), \(lsn), \(epoch), \(chunks)
            WHERE EXISTS (SELECT 1 FROM hearth_changelog WHERE ns = \(namespace) AND lsn = \(lsn) AND epoch = \(epoch))
            ON CONFLICT (ns) DO UPDATE
            SET lsn = EXCLUDED.lsn, epoch = EXCLUDED.epoch, chunks = EXCLUDED.chunks, taken = clock_timestamp()
            WHERE hearth_snapshot_heads.lsn < EXCLUDED.lsn
            RETURNING lsn
            """
        ).get()
        if published.rows.isEmpty {
            _ = try await objectLink.query(
                "DELETE FROM hearth_snapshots WHERE ns = \(namespace) AND lsn = \(lsn)"
            ).get()
            return false
        }
        return true
    }

    /// Removes what the snapshot of `namespace` at `lsn` makes unneeded: the changelog up to
    /// it and older snapshots' chunks.
    public func compact(namespace: String, through lsn: Int64) async throws {
        _ = try await objectLink.query("DELETE FROM hearth_changelog WHERE ns = \(namespace) AND lsn <= \(lsn)").get()
        _ = try await objectLink.query("DELETE FROM hearth_snapshots WHERE ns = \(namespace) AND lsn < \(lsn)").get()
    }
}
