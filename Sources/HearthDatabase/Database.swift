import HearthCore
public import HearthStore
public import Logging
import Synchronization

/// The one way into the data: every transport (REST, SSE, WebSocket) and the server itself
/// (onDisconnect replays) reads and writes through it. It owns the store, the rules in force in
/// each namespace (`rules`) and one `NamespaceEngine` per namespace, created on first use, where
/// reads, writes, transactions, listens and onDisconnect operations are judged by those rules.
public final class Database: Sendable {
    let store: Store
    /// The rules in force in every namespace: loaded from their files, reloaded, replaced.
    public let rules: RulesCatalog
    let logger: Logger
    /// What the engines report (`DatabaseActivity`).
    let activity: DatabaseActivity
    private let engines = Mutex<[String: NamespaceEngine]>([:])
    /// In a cluster: whether this node owns a namespace now (`ClusterHooks.owns`); nil for a
    /// single server, which owns every namespace.
    let owns: (@Sendable (String) -> Bool)?
    /// Told of every engine created (`observeEngines`).
    let engineObservers = Mutex<[@Sendable (String, NamespaceEngine) -> Void]>([])

    /// A database over `store` whose rules documents are found in `rulesFiles`.
    public init(
        store: Store,
        rulesFiles: RulesFiles,
        logger: Logger,
        activity: DatabaseActivity = .none,
        owns: (@Sendable (String) -> Bool)? = nil,
        sharedRules: (any SharedRules)? = nil
    ) {
        self.store = store
        self.owns = owns
        self.logger = logger
        self.activity = activity
        rules = RulesCatalog(files: rulesFiles, store: store, shared: sharedRules, logger: logger)
        // A new program is in force at once (the engine shares it); live listens are re-checked.
        rules.observe { [weak self] namespace, _ in
            self?.engines.withLock { $0[namespace] }?.recheckListens()
        }
    }

    /// The engine of namespace `name`, created (and subscribed to the namespace's commits) on
    /// first use. Its rules are not loaded by this call: use `engine(for:)` to serve requests.
    /// - Throws: `StoreError` (`.invalidNamespace`) for a name the store refuses, `.notOwner`
    ///   in a cluster for a namespace another node serves.
    public func namespace(_ name: String) throws -> NamespaceEngine {
        if let engine = engines.withLock({ $0[name] }) { return engine }
        if let owns, !owns(name) {
            throw StoreError(.notOwner, "Namespace '\(name)' is served by another node of the cluster; retry.")
        }
        let namespaceStore = try store.namespace(name)
        let namespaceRules = rules.rules(for: name)
        let (engine, created) = engines.withLock { table in
            if let engine = table[name] { return (engine, false) }
            var logger = logger
            logger[metadataKey: "hearth.ns"] = "\(name)"
            let engine = NamespaceEngine(
                store: namespaceStore,
                rules: namespaceRules,
                logger: logger,
                activity: activity.namespace(name)
            )
            table[name] = engine
            return (engine, true)
        }
        if created {
            for observer in engineObservers.withLock({ $0 }) { observer(name, engine) }
        }
        return engine
    }

    /// Forgets namespace `name`'s engine (a cluster node that no longer owns it): the next
    /// request opens it again, once the node owns it again.
    func forgetEngine(_ name: String) {
        _ = engines.withLock { $0.removeValue(forKey: name) }
    }

    /// The engines open now, by namespace.
    var openEngines: [String: NamespaceEngine] {
        engines.withLock { $0 }
    }

    /// The engine of namespace `name` with its rules in force (loaded, compiled and indexed on
    /// first use).
    public func engine(for name: String) async throws -> NamespaceEngine {
        let engine = try namespace(name)
        if engine.rules.current == nil {
            // No listen can exist before the first program, so there is nothing to re-check.
            _ = try await rules.program(for: name)
        }
        return engine
    }

    /// The engine of namespace `name` for a request of `caller`, its rules in force. A namespace
    /// that exists nowhere and has no rules file refuses everyone but the admin (its default
    /// rules would) before anything is opened for it, so made-up names cost no memory.
    /// - Throws: `StoreError` `.permissionDenied` for that refusal, `.invalidNamespace` for a
    ///   name the store refuses.
    public func open(_ name: String, as caller: Caller) async throws -> NamespaceEngine {
        if !caller.bypassesRules, try refusesAllButAdmin(name) { throw StoreError.permissionDenied }
        return try await engine(for: name)
    }

    /// The engine of namespace `name` when it is open with its rules in force and may serve
    /// `caller` as `open(_:as:)` would, without waiting for anything; nil otherwise (then
    /// `open(_:as:)` says what to do). For transports that answer on an event loop.
    public func openedEngine(_ name: String, as caller: Caller) -> NamespaceEngine? {
        guard let engine = engines.withLock({ $0[name] }), engine.rules.current != nil else { return nil }
        if !caller.bypassesRules, (try? refusesAllButAdmin(name)) != false { return nil }
        return engine
    }

    /// Whether the engine of namespace `name` is open (in memory).
    public func isOpen(_ name: String) -> Bool {
        engines.withLock { $0[name] != nil }
    }

    /// Whether namespace `name` exists on disk (from its first write or an admin's rules PUT).
    public func isCreated(_ name: String) -> Bool {
        (try? store.isCreated(name)) == true
    }

    /// Whether namespace `name` has a rules file (its own, or `default`'s).
    public func hasRulesFile(_ name: String) -> Bool {
        rules.files.stamp(for: name) != nil
    }

    /// True when `name` exists nowhere (neither open nor on disk) and has no rules file: its
    /// rules would be the default ones, which refuse everyone but the admin.
    public func refusesAllButAdmin(_ name: String) throws -> Bool {
        guard try !store.hasNamespace(name) else { return false }
        return !hasRulesFile(name)
    }

    /// Loads the rules of every namespace on disk and of `default`, applying their indexes.
    /// - Throws: `DatabaseError` `.invalidRules` or `.unreadableRules` when the default
    ///   namespace's file does not compile or cannot be read (the server must not start).
    public func loadRules() async throws {
        try await rules.loadAtStart(Set(try store.namespaceNames()).union(["default"]).sorted())
    }

    /// The rules documents the namespace had in force, oldest first (at most
    /// `Store.rulesHistoryLimit`; see `Store.recordRules`); in a cluster, the cluster's.
    public func rulesHistory(for name: String) async throws -> [RulesVersion] {
        if let shared = rules.shared { return try await shared.history(of: name, limit: Store.rulesHistoryLimit) }
        return try store.rulesHistory(name).map {
            RulesVersion(version: $0.version, publishedAt: $0.publishedAt, origin: $0.origin, text: $0.text)
        }
    }

    /// Whether namespace `name` has rules of its own: a rules file here (`hasRulesFile`) or,
    /// in a cluster, rules the cluster keeps for it.
    public func hasRules(_ name: String) async throws -> Bool {
        if hasRulesFile(name) { return true }
        guard let shared = rules.shared else { return false }
        return try await shared.has(name)
    }

    /// Replaces the namespace's rules with `text` (its file rewritten; in a cluster, published
    /// to the cluster instead) and makes the namespace exist on disk (an admin's `PUT
    /// /.settings/rules.json`).
    /// - Throws: `DatabaseError` `.invalidRules` with every diagnostic rendered; the rules in
    ///   force stay.
    public func replaceRules(_ text: String, for name: String) async throws {
        _ = try store.namespace(name)
        try await rules.replace(text, for: name)
        try await store.namespace(name).create()
    }

    /// The verbatim text of the namespace's rules in force (`GET /.settings/rules.json`).
    public func rulesDocument(for name: String) async throws -> String {
        _ = try store.namespace(name)
        return try await rules.document(for: name)
    }

    /// Closes the store (after the last request).
    public func close() {
        store.close()
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
