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
            let engine = NamespaceEngine(store: namespaceStore, logger: logger, clock: store.clock)
            table[name] = engine
            return engine
        }
    }

    /// Whether the engine of namespace `name` is open (in memory).
    public func isOpen(_ name: String) -> Bool {
        engines.withLock { $0[name] != nil }
    }

    /// Runs the onDisconnect writes that connections of a previous process left in every
    /// namespace (that process stopped before their connections closed). Call before serving.
    public func runStoredOnDisconnect() async {
        let names: [String]
        do {
            names = try store.namespaceNames()
        } catch {
            logger.error("listing namespaces failed", metadata: ["hearth.error": "\(error)"])
            return
        }
        for name in names {
            // Only namespaces with records get their engine now (the others on first use).
            guard (try? store.namespace(name).hasOnDisconnectRecords()) == true, let engine = try? namespace(name)
            else {
                continue
            }
            let count = await engine.runStoredOnDisconnect()
            if count > 0 {
                logger.notice(
                    "ran onDisconnect writes left by the previous run",
                    metadata: ["hearth.ns": "\(name)", "hearth.count": "\(count)"]
                )
            }
        }
    }
}
