public import HearthCore
import HearthProtocol
public import HearthStore
import Logging
import Synchronization

/// The realtime engine of one namespace: registers listeners and fans committed writes out to
/// them, writes through the namespace's store (transactions included), reads, and keeps each
/// connection's onDisconnect writes. Transport-independent: connections plug in as
/// `ListenSubscriber`s.
public final class NamespaceEngine: Sendable {
    public let store: NamespaceStore
    let logger: Logger
    let fanout: Fanout
    let delivery: DeliveryQueue
    let onDisconnect = OnDisconnectRegistry()
    private static let nextRegistration = Atomic<UInt64>(0)

    init(store: NamespaceStore, logger: Logger) {
        self.store = store
        self.logger = logger
        fanout = Fanout(store: store, logger: logger)
        let delivery = DeliveryQueue(fanout: fanout)
        self.delivery = delivery
        store.observeCommits { commit in delivery.enqueue(.commit(commit)) }
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
    public func listen(path: DataPath, query: Query?, subscriber: any ListenSubscriber) async throws -> ListenStart {
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
        do {
            let start: ListenStart
            if let filtered {
                let outcome = try await store.read { try QueryRunner.run($0, path: path, query: filtered) }
                delivery.enqueue(
                    .activate(id: registration.id, sequence: outcome.sequence, window: QueryWindow(outcome.children))
                )
                let data = outcome.node
                start = ListenStart(
                    data: data,
                    hash: ValueHash.hash(data),
                    registration: registration,
                    warnings: outcome.unindexed ? ["no_index"] : [],
                    sequence: outcome.sequence
                )
            } else {
                let (sequence, data) = try await store.read { reader in (reader.sequence, reader.node(at: path)) }
                delivery.enqueue(.activate(id: registration.id, sequence: sequence, window: nil))
                start = ListenStart(
                    data: data,
                    hash: ValueHash.hash(data),
                    registration: registration,
                    warnings: [],
                    sequence: sequence
                )
            }
            return start
        } catch {
            delivery.enqueue(.unregister(id: registration.id))
            throw error
        }
    }

    /// Removes a listener; no delivery for it starts after its turn on the delivery queue.
    public func unlisten(_ registration: ListenRegistration) {
        delivery.enqueue(.unregister(id: registration.id))
    }

    /// Returns once every commit announced before the call has been delivered (tests, drain).
    public func waitForDeliveries() async {
        await delivery.barrier()
    }

    // MARK: Reads and writes

    /// Writes through the namespace's serial writer; returns once the write is committed
    /// (durable as the store's sync mode promises) and announced to the fan-out. A transaction
    /// is a `Write` with `ifMatch` = the client's hash (`Write(request:)` converts a
    /// `WriteRequest`; the SDK's hash of null, `""`, is the store's `null_etag` and is mapped here
    /// too); `.conditionFailed` is the protocol's `datastale`.
    public func write(_ write: Write) async throws -> WriteResult {
        var write = write
        if let hash = write.ifMatch { write.ifMatch = Write.storeETag(forClientHash: hash) }
        return try await store.write(write)
    }

    /// The value at `path` through `query` (nil or a query that loads all data: the whole value,
    /// with priorities). An ordered query without an index is evaluated in memory.
    public func get(path: DataPath, query: Query?) async throws -> Node? {
        if let query, QueryIdentifier(query) != .default {
            return try await store.read { try QueryRunner.run($0, path: path, query: query).node }
        }
        return try await store.read { $0.node(at: path) }
    }

    // MARK: onDisconnect

    /// Keeps `write` to apply when `connection` closes, after those registered before it.
    /// (Rules are the caller's to check at registration, as Firebase does.)
    public func registerOnDisconnect(connection: ConnectionID, _ write: Write) {
        onDisconnect.register(write, for: connection)
    }

    /// Cancels the connection's onDisconnect writes at and below `path` (update entries there
    /// too; an update left empty goes).
    public func cancelOnDisconnect(connection: ConnectionID, at path: DataPath) {
        onDisconnect.cancel(at: path, for: connection)
    }

    /// Applies the connection's onDisconnect writes, each atomically, in registration order,
    /// and forgets them. Failures are logged and do not stop the others.
    public func runOnDisconnect(connection: ConnectionID) async {
        for write in onDisconnect.take(for: connection) {
            do {
                _ = try await store.write(write)
            } catch {
                logger.error(
                    "onDisconnect write failed",
                    metadata: ["hearth.connection": "\(connection)", "hearth.error": "\(error)"]
                )
            }
        }
    }

    /// The number of onDisconnect writes kept for `connection`.
    public func onDisconnectCount(connection: ConnectionID) -> Int {
        onDisconnect.count(for: connection)
    }
}
