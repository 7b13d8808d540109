public import HearthCore
import HearthProtocol
public import HearthRules
import HearthStore
import Logging
import Synchronization

/// The database API of one namespace, for every transport: reads (`get`, REST's `read` with
/// queries, shallow pages and ETags), writes through the namespace's store (transactions and
/// REST's conditional writes included), listens (registering listeners and fanning committed
/// writes out to them) and each connection's onDisconnect writes, all judged by the
/// namespace's rules. Transport-independent: connections plug in as `ListenSubscriber`s.
public final class NamespaceEngine: Sendable {
    let store: NamespaceStore
    let logger: Logger
    let fanout: Fanout
    let delivery: DeliveryQueue
    let onDisconnect = OnDisconnectRegistry()
    /// The security rules in force (the `Database.rules` catalog's entry for this namespace);
    /// every read, listen and write of a non-admin caller is checked with them.
    public let rules: NamespaceRules
    let listenGuard: ListenGuard
    /// What the engine reports for metrics.
    let activity: NamespaceActivity
    static let nextRegistration = Atomic<UInt64>(0)

    init(store: NamespaceStore, rules: NamespaceRules, logger: Logger, activity: NamespaceActivity = .init()) {
        self.store = store
        self.rules = rules
        self.logger = logger
        self.activity = activity
        fanout = Fanout(store: store, logger: logger, activity: activity)
        let delivery = DeliveryQueue(fanout: fanout)
        self.delivery = delivery
        let listenGuard = ListenGuard(rules: rules, store: store, delivery: delivery, logger: logger)
        self.listenGuard = listenGuard
        // The fan-out first: a listen revoked by a commit gets that commit, then nothing later.
        store.observeCommits { commit in delivery.enqueue(.commit(commit, announcedAt: .now)) }
        store.observeCommits { commit in listenGuard.committed(commit) }
        store.observeCommits { _ in activity.committed() }
    }

    // MARK: Rules

    /// Puts `program` in force at once and re-checks every live listen of a non-admin caller
    /// with it in the returned task: those no longer readable are revoked
    /// (`ListenSubscriber.revoked`).
    @discardableResult
    public func installRules(_ program: RuleProgram) -> Task<Void, Never> {
        rules.install(program)
        return recheckListens()
    }

    /// Re-checks every live listen of a non-admin caller with the rules in force, in the
    /// returned task (the rules changed).
    @discardableResult
    func recheckListens() -> Task<Void, Never> {
        Task {
            do {
                try self.listenGuard.recheckAll()
            } catch {
                self.logger.error(
                    "re-checking listens after a rules change failed",
                    metadata: ["hearth.error": "\(error)"]
                )
            }
        }
    }

    /// Re-checks a live listen for a new credential of its connection; keeps it when still
    /// readable (rules then see the new `auth`), else revokes it (`ListenSubscriber.revoked`).
    /// Returns whether it is kept.
    public func reauthorize(_ registration: ListenRegistration, as caller: Caller) async -> Bool {
        (try? await Task { try self.listenGuard.recheck(id: registration.id, as: caller) }.value) ?? false
    }

    // MARK: Listens

    /// Registers `subscriber` for the path and query and returns the value it must show first,
    /// consistent with later deliveries: every commit the read did not see is delivered, none
    /// that it saw. (The listener is registered first and collects pushes; the read notes its
    /// snapshot's sequence number; on activation, collected pushes up to it are dropped.)
    ///
    /// `ListenStart.data` is returned also when its `hash` equals the client's: the transport
    /// decides between `.listening(data:)` and `.listeningUnchanged` by comparing `hash` with
    /// the listen request's hash. Deliveries may begin before this returns; see
    /// `ListenSubscriber.deliver`.
    /// - Throws: `StoreError` when the store cannot be read.
    public func listen(
        path: DataPath,
        query: Query?,
        subscriber: any ListenSubscriber,
        as caller: Caller
    ) async throws -> ListenStart {
        let full = query ?? Query()
        let identifier = QueryIdentifier(full)
        let filtered = identifier == .default ? nil : full
        let registration = ListenRegistration(
            id: NamespaceEngine.nextRegistration.wrappingAdd(1, ordering: .relaxed).newValue,
            path: path,
            query: filtered,
            queryIdentifier: identifier
        )
        delivery.enqueue(.register(registration, subscriber))
        listenGuard.begin(id: registration.id)
        do {
            // The permission check reads the same snapshot as the data; the paths it read are
            // what a later write must touch to revoke the listen.
            let rules = self.rules
            let outcome = try await store.read { reader -> ListenRead? in
                let recorder = caller.bypassesRules ? nil : ReadLog()
                guard rules.canRead(caller, path: path, query: filtered, reader: reader, recorder: recorder) else {
                    return nil
                }
                let dependencies = recorder?.paths ?? []
                if let filtered {
                    let result = try QueryRunner.run(reader, path: path, query: filtered)
                    return ListenRead(
                        sequence: result.sequence,
                        data: result.node,
                        window: QueryWindow(result.children),
                        unindexed: result.unindexed,
                        dependencies: dependencies
                    )
                }
                return ListenRead(
                    sequence: reader.sequence,
                    data: reader.node(at: path),
                    window: nil,
                    unindexed: false,
                    dependencies: dependencies
                )
            }
            guard let outcome,
                listenGuard.add(
                    .init(
                        registration: registration,
                        subscriber: subscriber,
                        caller: caller,
                        dependencies: outcome.dependencies
                    )
                )
            else {
                activity.refused(.read)
                throw StoreError.permissionDenied
            }
            delivery.enqueue(.activate(id: registration.id, sequence: outcome.sequence, window: outcome.window))
            return ListenStart(
                data: outcome.data,
                hash: ValueHash.hash(outcome.data),
                registration: registration,
                warnings: outcome.unindexed ? ["no_index"] : [],
                sequence: outcome.sequence
            )
        } catch {
            listenGuard.remove(id: registration.id)
            delivery.enqueue(.unregister(id: registration.id))
            throw error
        }
    }

    /// What a listen's initial read found.
    private struct ListenRead: Sendable {
        let sequence: UInt64
        let data: Node?
        let window: QueryWindow?
        let unindexed: Bool
        let dependencies: [DataPath]
    }

    /// Removes a listener; no delivery for it starts after its turn on the delivery queue.
    public func unlisten(_ registration: ListenRegistration) {
        listenGuard.remove(id: registration.id)
        delivery.enqueue(.unregister(id: registration.id))
    }

    /// Returns once every commit announced before the call has been delivered (tests, drain).
    public func waitForDeliveries() async {
        await delivery.barrier()
    }

    /// Calls `action` once every commit announced before the call has been handed to its
    /// listeners' subscribers: at once when none is still being fanned out, else on the delivery
    /// queue. The realtime transport answers a write of a connection that listens this way, so
    /// the data its listens see arrives before the acknowledgement, as Firebase's server sends
    /// them (the SDKs drop their pending write on the acknowledgement and show the server's
    /// data; an acknowledgement first shows the old value for a moment). Never blocks.
    public func afterDeliveries(_ action: @escaping @Sendable () -> Void) {
        delivery.enqueue(.after(action))
    }

    // MARK: Reads and writes

    /// Writes through the namespace's serial writer; returns once the write is committed
    /// (durable as the store's sync mode promises) and announced to the fan-out. A transaction
    /// is a `Write` with `ifMatch` = the client's hash (`Write(request:)` converts a
    /// `WriteRequest`; the SDK's hash of null, `""`, is the store's `null_etag` and is mapped here
    /// too); `.conditionFailed` is the protocol's `datastale`.
    /// - Throws: `StoreError` `.permissionDenied` when the rules refuse `caller` the write
    ///   (checked on the writer, against the state the write applies to).
    public func write(_ write: Write, as caller: Caller) async throws -> WriteResult {
        try await withCheckedThrowingContinuation { continuation in
            self.write(write, as: caller) { continuation.resume(with: $0) }
        }
    }

    /// `write(_:as:)` without a task: `completion` runs on the store's writer and must only hand
    /// the result on (a connection's event loop resumes from there).
    /// - Parameter pass: the event loop's pass handing its writes over together (`WritePass`).
    public func write(
        _ write: Write,
        as caller: Caller,
        in pass: WritePass? = nil,
        completion: @escaping @Sendable (Result<WriteResult, Error>) -> Void
    ) {
        var write = write
        write.author = caller.writeAuthor
        if let hash = write.ifMatch { write.ifMatch = Write.storeETag(forClientHash: hash) }
        let (activity, started) = (self.activity, ContinuousClock.now)
        store.write(write, authorize: writeAuthorizer(for: caller), in: pass) { result in
            if case .success(.committed) = result { activity.acknowledged(.now - started) }
            completion(result)
        }
    }

    /// Whether the rules let `caller` read `path` through `query` now (an SSE stream's check
    /// before it starts; listens and gets check in the snapshot they read).
    public func canRead(path: DataPath, query: Query?, as caller: Caller) async throws -> Bool {
        if caller.bypassesRules { return true }
        let filtered = query.flatMap { QueryIdentifier($0) == .default ? nil : $0 }
        let rules = self.rules
        return try await store.read { rules.canRead(caller, path: path, query: filtered, reader: $0) }
    }

    /// The value at `path` through `query` (nil or a query that loads all data: the whole value,
    /// with priorities), as the WebSocket's `g` reads it (REST reads use `read(_:as:)`). An
    /// ordered query without an index is evaluated in memory.
    /// - Throws: `StoreError` `.permissionDenied` when the rules refuse `caller` the read.
    public func get(path: DataPath, query: Query?, as caller: Caller) async throws -> Node? {
        let filtered = query.flatMap { QueryIdentifier($0) == .default ? nil : $0 }
        let (rules, activity) = (self.rules, self.activity)
        return try await store.read { reader in
            guard rules.canRead(caller, path: path, query: filtered, reader: reader) else {
                activity.refused(.read)
                throw StoreError.permissionDenied
            }
            if let filtered { return try QueryRunner.run(reader, path: path, query: filtered).node }
            return reader.node(at: path)
        }
    }

    // MARK: onDisconnect

    /// The default cap on one connection's onDisconnect operations (docs/realtime.md).
    public static let defaultMaxOnDisconnectOperations = 1_000

    /// Keeps `write` to apply when `connection` closes, after those registered before it. As in
    /// Firebase, the rules judge the write when it is registered (as if it happened now); it then
    /// runs on disconnect without a second check. Returns once the registration is stored (one
    /// record, as durable as a write), so a crash before the disconnect leaves it for the next
    /// start.
    /// - Parameter limit: the most operations the connection may hold.
    /// - Throws: `StoreError` `.permissionDenied` when the rules refuse `caller` the write;
    ///   `DatabaseError` `.tooManyOnDisconnectOperations` when the connection holds `limit`.
    public func registerOnDisconnect(
        connection: ConnectionID,
        _ write: Write,
        as caller: Caller,
        limit: Int = NamespaceEngine.defaultMaxOnDisconnectOperations
    ) async throws {
        if !caller.bypassesRules {
            try await store.check(write, authorize: writeAuthorizer(for: caller))
        }
        switch onDisconnect.register(write, for: connection, limit: limit) {
        case .full:
            throw DatabaseError.tooManyOnDisconnectOperations(limit: limit)
        case .added(let position, let isFirst):
            do {
                try await store.addOnDisconnect(
                    connection: connection.rawValue,
                    position: position,
                    operation: OnDisconnectCodec.encode(write),
                    replacingStale: isFirst
                )
            } catch {
                onDisconnect.remove(at: position, for: connection)
                throw error
            }
        case .renumbered(let entries):
            do {
                try await store.saveOnDisconnect(
                    connection: connection.rawValue,
                    operations: entries.map { ($0.position, OnDisconnectCodec.encode($0.write)) }
                )
            } catch {
                onDisconnect.remove(at: entries[entries.count - 1].position, for: connection)
                throw error
            }
        }
    }

    /// Cancels the connection's onDisconnect writes at and below `path` (update entries there
    /// too; an update left empty goes); returns once that is stored. Only the records it
    /// changes are written.
    public func cancelOnDisconnect(connection: ConnectionID, at path: DataPath) async throws {
        let changes = onDisconnect.cancel(at: path, for: connection)
        try await store.changeOnDisconnect(
            connection: connection.rawValue,
            changes: changes.map { ($0.position, $0.write.map(OnDisconnectCodec.encode)) }
        )
    }

    /// Applies the connection's onDisconnect writes, each atomically, in registration order,
    /// and forgets them; each deletes its stored record in its own batch, so it runs once.
    /// Failures are logged and do not stop the others.
    public func runOnDisconnect(connection: ConnectionID) async {
        for entry in onDisconnect.take(for: connection) {
            await run(entry.write, record: .init(connection: connection.rawValue, position: entry.position))
        }
    }

    /// Runs the writes left in the store by connections of a process that stopped without
    /// running them (at startup, before serving). Returns how many it ran.
    @discardableResult
    public func runStoredOnDisconnect() async -> Int {
        let stored: [(connection: String, operations: [(position: UInt32, bytes: [UInt8])])]
        do {
            stored = try store.loadOnDisconnect()
        } catch {
            logger.error("reading stored onDisconnect writes failed", metadata: ["hearth.error": "\(error)"])
            return 0
        }
        var count = 0
        for (connection, operations) in stored {
            for (position, bytes) in operations {
                let record = NamespaceStore.OnDisconnectRecord(connection: connection, position: position)
                do {
                    await run(try OnDisconnectCodec.decode(bytes), record: record)
                    count += 1
                } catch {
                    logger.error(
                        "a stored onDisconnect write is unreadable; dropped",
                        metadata: ["hearth.connection": "\(connection)", "hearth.error": "\(error)"]
                    )
                    try? await store.deleteOnDisconnect(record)
                }
            }
        }
        return count
    }

    private func run(_ write: Write, record: NamespaceStore.OnDisconnectRecord) async {
        do {
            _ = try await store.write(write, consuming: record)
        } catch {
            logger.error(
                "onDisconnect write failed",
                metadata: ["hearth.connection": "\(record.connection)", "hearth.error": "\(error)"]
            )
            // Its record goes too (it would fail again); when the store is closing this fails
            // as well and the write runs at the next start.
            try? await store.deleteOnDisconnect(record)
        }
    }

    /// The number of onDisconnect writes kept for `connection`.
    public func onDisconnectCount(connection: ConnectionID) -> Int {
        onDisconnect.count(for: connection)
    }
}

extension NamespaceEngine {
    /// The rules' check of `caller`'s writes, reporting each refusal (nil: the admin).
    func writeAuthorizer(for caller: Caller) -> WriteAuthorizer? {
        guard let check = rules.writeAuthorizer(for: caller) else { return nil }
        let activity = self.activity
        return { proposal in
            let allowed = check(proposal)
            if !allowed { activity.refused(.write) }
            return allowed
        }
    }
}
