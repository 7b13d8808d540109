public import HearthStore
public import Logging
import Synchronization

/// The realtime side of a store: one `NamespaceEngine` per namespace (listeners, fan-out of
/// committed writes, writes and transactions, onDisconnect), created on first use.
public final class RealtimeDatabase: Sendable {
    public let store: Store
    let logger: Logger
    private let engines = Mutex<[String: NamespaceEngine]>([:])

    public init(store: Store, logger: Logger) {
        self.store = store
        self.logger = logger
    }

    /// The engine of namespace `name`, created (and subscribed to the namespace's commits) on
    /// first use.
    /// - Throws: `StoreError` (`.invalidNamespace`) for a name the store refuses.
    public func namespace(_ name: String) throws -> NamespaceEngine {
        if let engine = engines.withLock({ $0[name] }) { return engine }
        let namespaceStore = try store.namespace(name)
        return engines.withLock { table in
            if let engine = table[name] { return engine }
            var logger = logger
            logger[metadataKey: "hearth.ns"] = "\(name)"
            let engine = NamespaceEngine(store: namespaceStore, logger: logger)
            table[name] = engine
            return engine
        }
    }
}
