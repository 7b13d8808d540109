public import NIOCore
import PostgresNIO

/// A shared log's snapshots in PostgreSQL (`hearth_shared_snapshots`, made visible by
/// `hearth_shared_snapshot_heads`), and the compaction they allow (`SharedLogFollower` in
/// HearthStore decides when). Chunks go over the objects' links, so a large one never delays
/// an append to the log.
extension ClusterDirectory {
    /// The newest snapshot of the shared log `stream`: its position and chunk count.
    public func sharedSnapshotHead(_ stream: String) -> EventLoopFuture<(position: Int64, chunks: Int32)?> {
        shared.query(
            "SELECT position, chunks FROM hearth_shared_snapshot_heads WHERE stream = \(stream)"
        ).flatMapThrowing { result in
            try result.rows.first.map { try $0.decode((Int64, Int32).self) }.map { (position: $0.0, chunks: $0.1) }
        }
    }

    /// Chunk `chunk` of the snapshot of `stream` at `position`; nil when it is gone.
    public func sharedSnapshotChunk(_ stream: String, position: Int64, chunk: Int32) -> EventLoopFuture<[UInt8]?> {
        objectLink.query(
            """
            SELECT data FROM hearth_shared_snapshots
            WHERE stream = \(stream) AND position = \(position) AND chunk = \(chunk)
            """
        ).flatMapThrowing { result in
            try result.rows.first.map { Array(buffer: try $0.decode(ByteBuffer.self)) }
        }
    }

    /// Stores chunk `chunk` of the snapshot of `stream` at `position` (again: the same bytes).
    public func writeSharedSnapshotChunk(
        _ stream: String,
        position: Int64,
        chunk: Int32,
        data: [UInt8]
    ) -> EventLoopFuture<Void> {
        objectLink.query(
            """
            INSERT INTO hearth_shared_snapshots (stream, position, chunk, data)
            VALUES (\(stream), \(position), \(chunk), \(ByteBuffer(bytes: data)))
            ON CONFLICT (stream, position, chunk) DO UPDATE SET data = EXCLUDED.data
            """
        ).map { _ in }
    }

    /// Makes the snapshot of `stream` at `position` (its `chunks` stored) the newest, only when
    /// the log holds an entry there and no newer snapshot is published; false otherwise (its
    /// chunks are then removed, unless the newest snapshot is at this position: another node's,
    /// the same rows).
    public func publishSharedSnapshot(_ stream: String, position: Int64, chunks: Int32) -> EventLoopFuture<Bool> {
        shared.query(
            """
            INSERT INTO hearth_shared_snapshot_heads (stream, position, chunks)
            SELECT \(stream), \(position), \(chunks)
            WHERE EXISTS (SELECT 1 FROM hearth_shared_log WHERE stream = \(stream) AND position = \(position))
            ON CONFLICT (stream) DO UPDATE
            SET position = EXCLUDED.position, chunks = EXCLUDED.chunks, taken = clock_timestamp()
            WHERE hearth_shared_snapshot_heads.position < EXCLUDED.position
            RETURNING position
            """
        ).flatMap { result in
            guard result.rows.isEmpty else { return self.shared.eventLoop.makeSucceededFuture(true) }
            // Unless another node published the same position (the same rows) first.
            return self.objectLink.query(
                """
                DELETE FROM hearth_shared_snapshots WHERE stream = \(stream) AND position = \(position)
                AND NOT EXISTS (
                    SELECT 1 FROM hearth_shared_snapshot_heads WHERE stream = \(stream) AND position = \(position)
                )
                """
            ).map { _ in false }
        }
    }

    /// Removes the entries of `stream` before `entriesBefore` and the chunks of its snapshots
    /// before `snapshotsBefore`.
    public func compactShared(_ stream: String, entriesBefore: Int64, snapshotsBefore: Int64) -> EventLoopFuture<Void> {
        objectLink.query(
            "DELETE FROM hearth_shared_log WHERE stream = \(stream) AND position < \(entriesBefore)"
        ).flatMap { _ in
            self.objectLink.query(
                "DELETE FROM hearth_shared_snapshots WHERE stream = \(stream) AND position < \(snapshotsBefore)"
            )
        }.map { _ in }
    }

    /// Removes the entries of `stream` before `position` (the rules' logs keep their newest
    /// versions only).
    public func trimShared(_ stream: String, before position: Int64) -> EventLoopFuture<Void> {
        shared.query(
            "DELETE FROM hearth_shared_log WHERE stream = \(stream) AND position < \(position)"
        ).map { _ in }
    }
}
