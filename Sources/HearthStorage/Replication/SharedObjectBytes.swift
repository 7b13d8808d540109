/// Where a cluster's objects' bytes live: each generation's bytes in pieces of at most
/// `ObjectStore.sharedPieceBytes`, numbered 0, 1, 2, …, written before the catalog batch that
/// names the generation is appended. A node's files are a cache of them.
///
/// The calls block (off the event loops).
public protocol SharedObjectBytes: Sendable {
    /// A generation no node was given before, at least `atLeast`.
    func reserveGeneration(atLeast: UInt64) throws -> UInt64

    /// Stores piece `piece` of `generation`'s bytes.
    func write(_ bytes: [UInt8], generation: String, piece: Int) throws

    /// Piece `piece` of `generation`'s bytes; nil past the last one (or when they are gone).
    func read(generation: String, piece: Int) throws -> [UInt8]?

    /// Gives `target` a copy of `source`'s bytes.
    func copy(generation source: String, to target: String) throws

    /// Removes `generation`'s bytes.
    func delete(generation: String) throws

    /// The generations holding bytes, none of them written in the last `seconds` seconds.
    func generations(untouchedFor seconds: Int) throws -> [String]
}
