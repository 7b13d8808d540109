import Foundation
import HearthCore
import HearthStore
import Logging

/// Opens the store, applies every namespace's indexes and seeds an empty store.
enum StoreBootstrap {
    static func open(_ configuration: HearthServerConfiguration, logger: Logger) async throws -> (Store, RulesRegistry) {
        try FileManager.default.createDirectory(atPath: configuration.dataDirectory, withIntermediateDirectories: true)
        let store = try Store.open(
            directory: configuration.dataDirectory,
            configuration: StoreConfiguration(syncMode: configuration.syncMode)
        )
        logger.info("store opened", metadata: ["hearth.data": "\(configuration.dataDirectory)"])
        do {
            let registry = RulesRegistry(
                files: RulesFiles(defaultRulesFile: configuration.rulesFile),
                store: store,
                logger: logger
            )
            let names = Set(try store.namespaceNames()).union(["default"]).sorted()
            for name in names {
                _ = try await registry.document(for: name)
            }
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
        // TODO: stream with `NamespaceStore.importJSON` once the store offers it; until then the
        // seed is parsed whole and written as one atomic set of the root.
        guard let data = FileManager.default.contents(atPath: seedFile) else {
            throw HearthServerError("Cannot read seed file '\(seedFile)'.")
        }
        let value: NewValue
        do {
            value = try TreeParser.parse([UInt8](data), at: .root)
        } catch let error as CoreError {
            throw HearthServerError("Seed file '\(seedFile)': \(error.message)")
        }
        _ = try await store.namespace("default").write(Write(.set(.root, value)))
        logger.info("seed imported", metadata: ["hearth.seed": "\(seedFile)", "hearth.ns": "default"])
    }
}
