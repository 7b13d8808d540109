import Foundation
import HearthCore
import HearthStore
import Logging

/// Opens the store, applies every namespace's indexes and seeds an empty store.
enum StoreBootstrap {
    static func open(_ configuration: HearthServerConfiguration, logger: Logger) async throws -> (Store, RulesRegistry)
    {
        try FileManager.default.createDirectory(atPath: configuration.dataDirectory, withIntermediateDirectories: true)
        let store = try Store.open(
            directory: configuration.dataDirectory,
            configuration: StoreConfiguration(syncMode: configuration.syncMode, triggers: configuration.triggers)
        )
        logger.info("store opened", metadata: ["hearth.data": "\(configuration.dataDirectory)"])
        do {
            let registry = RulesRegistry(
                files: RulesFiles(defaultRulesFile: configuration.rulesFile),
                store: store,
                logger: logger
            )
            let names = Set(try store.namespaceNames()).union(["default"]).sorted()
            try await registry.loadAtStart(names)
            try await seedIfEmpty(store, configuration: configuration, logger: logger)
            return (store, registry)
        } catch let error as RESTError {
            store.close()
            throw HearthServerError(error.message)
        } catch {
            store.close()
            throw error
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
