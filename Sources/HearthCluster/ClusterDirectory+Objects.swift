public import NIOCore
import PostgresNIO

/// Storage's objects' bytes in the cluster's PostgreSQL (`hearth_object_chunks`): each
/// generation's bytes in pieces numbered 0, 1, 2, …, and the generations handed out
/// (`hearth_object_generations`).
extension ClusterDirectory {
    /// How many connections carry objects' bytes.
    static let objectLinkCount = 3

    /// The next link for objects' bytes, in turn.
    var objectLink: PostgresLink {
        let index = nextObjectLink.wrappingAdd(1, ordering: .relaxed).oldValue
        return objectLinks[index % objectLinks.count]
    }

    /// A generation no node was given before: later than every one handed out, and at least
    /// `atLeast` (the time, or a generation this node knows of).
    public func reserveObjectGeneration(atLeast: Int64) -> EventLoopFuture<Int64> {
        objectLink.query(
            """
            INSERT INTO hearth_object_generations (id, last) VALUES (1, \(atLeast))
            ON CONFLICT (id) DO UPDATE
            SET last = GREATEST(hearth_object_generations.last + 1, EXCLUDED.last) RETURNING last
            """
        ).flatMapThrowing { result in
            guard let row = result.rows.first else {
                throw ClusterError.unavailable("PostgreSQL handed out no generation")
            }
            return try row.decode(Int64.self)
        }
    }

    /// Stores piece `chunk` of `generation`'s bytes.
    public func writeObjectChunk(generation: Int64, chunk: Int32, data: ByteBuffer) -> EventLoopFuture<Void> {
        objectLink.query(
            "INSERT INTO hearth_object_chunks (generation, chunk, data) VALUES (\(generation), \(chunk), \(data))"
        ).map { _ in }
    }

    /// Piece `chunk` of `generation`'s bytes; nil when there is none (past the last piece, or
    /// the generation's bytes are gone).
    public func objectChunk(generation: Int64, chunk: Int32) -> EventLoopFuture<ByteBuffer?> {
        objectLink.query(
            "SELECT data FROM hearth_object_chunks WHERE generation = \(generation) AND chunk = \(chunk)"
        ).flatMapThrowing { result in
            try result.rows.first?.decode(ByteBuffer.self)
        }
    }

    /// Gives `target` a copy of `source`'s bytes (inside PostgreSQL: nothing crosses the wire).
    public func copyObjectChunks(from source: Int64, to target: Int64) -> EventLoopFuture<Void> {
        objectLink.query(
            """
            INSERT INTO hearth_object_chunks (generation, chunk, data)
            SELECT \(target), chunk, data FROM hearth_object_chunks WHERE generation = \(source)
            """
        ).map { _ in }
    }

    /// Removes `generation`'s bytes (its version was deleted or replaced).
    public func deleteObjectChunks(generation: Int64) -> EventLoopFuture<Void> {
        objectLink.query("DELETE FROM hearth_object_chunks WHERE generation = \(generation)").map { _ in }
    }

    /// The generations with bytes none of which was written in the last `seconds` seconds.
    public func objectGenerations(untouchedFor seconds: Int) -> EventLoopFuture<[Int64]> {
        objectLink.query(
            """
            SELECT generation FROM hearth_object_chunks GROUP BY generation
            HAVING max(written) < clock_timestamp() - make_interval(secs => \(Double(seconds)))
            """
        ).flatMapThrowing { result in
            try result.rows.map { try $0.decode(Int64.self) }
        }
    }
}
