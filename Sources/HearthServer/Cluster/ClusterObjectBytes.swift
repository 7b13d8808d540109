import HearthCluster
import HearthStorage
import NIOCore

/// The objects' bytes in `hearth_object_chunks` of the cluster's PostgreSQL (the catalog's
/// batches are the shared log `storage`, `ClusterSharedLog`). Its calls block (the storage queue
/// makes them, never an event loop) for at most the PostgreSQL link's own timeouts.
struct ClusterObjectBytes: SharedObjectBytes {
    let directory: ClusterDirectory

    func reserveGeneration(atLeast: UInt64) throws -> UInt64 {
        UInt64(try directory.reserveObjectGeneration(atLeast: Int64(clamping: atLeast)).wait())
    }

    func write(_ bytes: [UInt8], generation: String, piece: Int) throws {
        try directory.writeObjectChunk(
            generation: try Self.number(generation),
            chunk: Int32(piece),
            data: ByteBuffer(bytes: bytes)
        ).wait()
    }

    func read(generation: String, piece: Int) throws -> [UInt8]? {
        try directory.objectChunk(generation: try Self.number(generation), chunk: Int32(piece)).wait().map {
            Array(buffer: $0)
        }
    }

    func copy(generation source: String, to target: String) throws {
        try directory.copyObjectChunks(from: try Self.number(source), to: try Self.number(target)).wait()
    }

    func delete(generation: String) throws {
        try directory.deleteObjectChunks(generation: try Self.number(generation)).wait()
    }

    func generations(untouchedFor seconds: Int) throws -> [String] {
        try directory.objectGenerations(untouchedFor: seconds).wait().map { String($0) }
    }

    /// A generation as PostgreSQL keeps it.
    private static func number(_ generation: String) throws -> Int64 {
        guard let number = Int64(generation) else {
            throw ClusterError.unavailable("'\(generation)' is not a generation the cluster can keep")
        }
        return number
    }
}
