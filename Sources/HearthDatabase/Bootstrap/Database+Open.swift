import Foundation
import HearthCore
import HearthStore
public import Logging

extension Database {
    /// Opens the store in the configuration's data directory, loads every namespace's rules
    /// (applying their indexes) and seeds an empty database.
    /// - Throws: `DatabaseError` `.invalidRules` or `.unreadableRules` when the default rules
    ///   file does not compile or cannot be read, `.invalidSeed` when the seed cannot be
    ///   imported, `.invalidConfiguration` for a `WriterTuning` that cannot work; `StoreError`
    ///   when the store cannot be opened (`.locked`: another process holds it).
    public static func open(
        _ configuration: DatabaseConfiguration,
        logger: Logger,
        activity: DatabaseActivity = .none
    ) async throws -> Database {
        if let problem = configuration.writer.problem { throw DatabaseError(.invalidConfiguration, problem) }
        var storeConfiguration = StoreConfiguration(
            syncMode: configuration.syncMode,
            triggers: configuration.triggers.registered
        )
        storeConfiguration.loopJobLimit = UInt64(configuration.writer.loopJobLimit.nanoseconds)
        storeConfiguration.homeIdleLimit = UInt64(configuration.writer.homeIdleLimit.nanoseconds)
        storeConfiguration.loopProbeInterval = UInt64(configuration.writer.loopProbeInterval.nanoseconds)
        if let cluster = configuration.cluster {
            storeConfiguration.replication = { name in cluster.sink(name) }
            storeConfiguration.opens = cluster.owns
            storeConfiguration.replicatedPassEnded = cluster.passEnded
        }
        let store = try Store.open(
            directory: configuration.dataDirectory,
            configuration: storeConfiguration,
            clock: configuration.clock
        )
        logger.info("store opened", metadata: ["hearth.data": "\(configuration.dataDirectory)"])
        let database = Database(
            store: store,
            rulesFiles: RulesFiles(defaultRulesFile: configuration.rulesFile),
            logger: logger,
            activity: activity,
            owns: configuration.cluster?.owns,
            sharedRules: configuration.cluster?.rules
        )
        // A cluster node opens a namespace only once it owns it (`Database.takeOver`): its
        // rules load and the seed is imported then.
        if configuration.cluster != nil { return database }
        do {
            try await database.loadRules()
            if let seedFile = configuration.seedFile {
                try await database.seedIfEmpty(from: seedFile, logger: logger)
            }
            return database
        } catch {
            store.close()
            throw error
        }
    }

    /// Imports `seedFile` into `default` when the whole database is empty and the file exists.
    func seedIfEmpty(from seedFile: String, logger: Logger) async throws {
        guard FileManager.default.fileExists(atPath: seedFile), try store.isEmpty() else { return }
        try await seed(from: seedFile, logger: logger)
    }

    /// Imports `seedFile` into `default`.
    func seed(from seedFile: String, logger: Logger) async throws {
        guard let handle = FileHandle(forReadingAtPath: seedFile) else {
            throw DatabaseError(.invalidSeed, "Cannot open seed file '\(seedFile)'.")
        }
        let reader = SeedChunkReader(handle: handle)
        defer { try? handle.close() }
        do {
            try await store.namespace("default").importJSON(at: .root, nextChunk: { try reader.next() })
        } catch let error as CoreError {
            throw DatabaseError(.invalidSeed, "Seed file '\(seedFile)': \(error.message)")
        }
        logger.info("seed imported", metadata: ["hearth.seed": "\(seedFile)", "hearth.ns": "default"])
    }
}

/// Reads the seed file in 1 MiB chunks; `importJSON` calls it from one task at a time.
private final class SeedChunkReader: @unchecked Sendable {
    let handle: FileHandle

    init(handle: FileHandle) { self.handle = handle }

    func next() throws -> [UInt8]? {
        guard let data = try handle.read(upToCount: 1 << 20), !data.isEmpty else { return nil }
        return [UInt8](data)
    }
}
