import Foundation
import HearthCore
import HearthDatabase
import HearthStore
import Logging

/// Opens the store, hands it to the database, loads every namespace's rules (applying their
/// indexes) and seeds an empty store.
enum StoreBootstrap {
    static func open(
        _ configuration: HearthServerConfiguration,
        logger: Logger,
        activity: DatabaseActivity = .none
    ) async throws -> Database {
        try FileManager.default.createDirectory(atPath: configuration.dataDirectory, withIntermediateDirectories: true)
        let store = try Store.open(
            directory: configuration.dataDirectory,
            configuration: StoreConfiguration(syncMode: configuration.syncMode, triggers: configuration.triggers),
            clock: configuration.clock
        )
        logger.info("store opened", metadata: ["hearth.data": "\(configuration.dataDirectory)"])
        let database = Database(
            store: store,
            rulesFiles: RulesFiles(defaultRulesFile: configuration.rulesFile),
            logger: logger,
            activity: activity
        )
        do {
            try await startingRules { try await database.loadRules() }
            try await seedIfEmpty(store, configuration: configuration, logger: logger)
            return database
        } catch {
            store.close()
            throw error
        }
    }

    /// Runs `load` (the rules loaded at start): a default rules file that does not compile or
    /// cannot be read stops the start with its diagnostics.
    static func startingRules(_ load: () async throws -> Void) async throws {
        do {
            try await load()
        } catch let error as DatabaseError where error.code == .invalidRules || error.code == .unreadableRules {
            throw HearthServerError(error.message)
        }
    }

    static func seedIfEmpty(_ store: Store, configuration: HearthServerConfiguration, logger: Logger) async throws {
        guard let seedFile = configuration.seedFile, FileManager.default.fileExists(atPath: seedFile),
            try store.isEmpty()
        else { return }
        guard let handle = FileHandle(forReadingAtPath: seedFile) else {
            throw HearthServerError("Cannot open seed file '\(seedFile)'.")
        }
        let reader = SeedChunkReader(handle: handle)
        defer { try? handle.close() }
        do {
            try await store.namespace("default").importJSON(at: .root, nextChunk: { try reader.next() })
        } catch let error as CoreError {
            throw HearthServerError("Seed file '\(seedFile)': \(error.message)")
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
