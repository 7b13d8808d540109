/// Where a namespace writer's batches go. In production straight to LevelDB; a test gives
/// `StoreConfiguration.batchWriter` a wrapper that counts the batches or refuses one, so no
/// test hook lives in the writer.
struct BatchWriter: Sendable {
    /// What a batch is, for a wrapper that only cares about some.
    enum Kind: Sendable {
        /// The writes a round staged, applied together.
        case stagedGroup
        /// One sequenced write applied on its own.
        case commit
        /// Index builds, import chunks, onDisconnect records.
        case unsequenced
        /// The first write of a namespace: its name, id and index definitions.
        case registration
    }

    let write: @Sendable (WriteBatch, Kind) throws -> Void

    /// Writes to `db` without a sync (the writer syncs per its sync mode).
    static func levelDB(_ db: LevelDB) -> BatchWriter {
        BatchWriter { batch, _ in try db.write(batch, sync: false) }
    }
}
