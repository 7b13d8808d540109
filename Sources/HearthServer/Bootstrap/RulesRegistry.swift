import HearthCore
import HearthStore
import Logging

/// The rules document of each namespace, loaded from its file on first use, with its
/// `.indexOn` entries applied to the store.
actor RulesRegistry {
    private let files: RulesFiles
    private let store: Store
    private let logger: Logger
    private var documents: [String: String] = [:]
    private var loading: [String: Task<String, any Error>] = [:]

    init(files: RulesFiles, store: Store, logger: Logger) {
        self.files = files
        self.store = store
        self.logger = logger
    }

    /// The namespace's rules document; loads it and applies its indexes on first use.
    func document(for namespace: String) async throws -> String {
        if let document = documents[namespace] { return document }
        if let task = loading[namespace] { return try await task.value }
        let files = self.files
        let store = self.store
        let logger = self.logger
        let task = Task<String, any Error> {
            let text = try files.read(for: namespace) ?? RulesFiles.defaultDocument
            let specs: [IndexSpec]
            do {
                specs = try CoreBridge.indexes(fromRulesDocument: text)
            } catch let error as CoreError {
                throw RESTError(.internalServerError, "Rules file '\(files.path(for: namespace))': \(error.message)")
            }
            try await store.namespace(namespace).setIndexes(specs)
            logger.info(
                "rules loaded",
                metadata: ["hearth.ns": "\(namespace)", "hearth.indexes": "\(specs.count)"]
            )
            return text
        }
        loading[namespace] = task
        do {
            let text = try await task.value
            documents[namespace] = text
            loading[namespace] = nil
            return text
        } catch {
            loading[namespace] = nil
            throw error
        }
    }

    /// Validates and installs a new rules document: indexes applied, file rewritten. On any
    /// failure the old rules stay in force.
    func replace(_ text: String, for namespace: String) async throws {
        _ = try await document(for: namespace)
        let specs: [IndexSpec]
        do {
            _ = try JSONParser.parse(text, allowComments: true)
            specs = try CoreBridge.indexes(fromRulesDocument: text)
        } catch let error as CoreError {
            throw RESTError.badRequest(error.message)
        }
        try await store.namespace(namespace).setIndexes(specs)
        try files.write(text, for: namespace)
        documents[namespace] = text
        logger.info("rules replaced", metadata: ["hearth.ns": "\(namespace)", "hearth.indexes": "\(specs.count)"])
    }
}
