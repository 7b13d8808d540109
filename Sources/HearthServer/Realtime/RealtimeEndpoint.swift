import HearthDatabase
import HearthProtocol
import Logging
import Synchronization

/// `ws://host:port/.ws?v=5&ns=NAME`: decides the upgrade. Each WebSocket then runs as a
/// `RealtimeChannelHandler` on its event loop (`RealtimeChildChannel`: no task per connection).
struct RealtimeEndpoint: Sendable {
    static let path = "/.ws"
    static let protocolVersion = "5"

    private let slot = ContextSlot()
    private let counter = Counter()
    private let provisional = ProvisionalNamespaces()
    /// Ticks the connections, one repeated task per event loop.
    let ticker = RealtimeTicker()
    /// The engine deliveries, one inbox per event loop.
    let inboxes: RealtimeLoopInboxes<RealtimeChannelHandler>

    /// The endpoint exists before the store is open (the HTTP server is built first, so a bad
    /// TLS setup fails before anything touches the data); `attach` gives it the context.
    init(tuning: RealtimeTuning) {
        inboxes = RealtimeLoopInboxes(tuning: tuning)
    }

    /// Connects the endpoint to the opened store's realtime context.
    func attach(_ context: RealtimeContext) {
        slot.value.withLock { $0 = (context, RealtimeConnectionLimits(context.configuration)) }
    }

    /// Decides the upgrade of a request for `target` (path and query, raw) sent to `authority`
    /// (the `Host` header): `/.ws?v=5` with a valid `ns` whose engine opens. Nil refuses it
    /// (400, `Connection: close`).
    func upgrade(target rawTarget: String, authority: String?) async -> RealtimeUpgrade? {
        guard let (context, limits) = slot.value.withLock({ $0 }) else { return nil }
        let target = PercentDecoding.splitTarget(rawTarget)
        guard target.path == Self.path, let query = try? QueryString(target.query),
            query["v"] == Self.protocolVersion
        else { return nil }
        let namespace = query["ns"] ?? "default"
        guard RESTOptions.isValidNamespace(namespace) else { return nil }
        let engine: NamespaceEngine
        do {
            if !context.database.isOpen(namespace),
                try context.database.refusesAllButAdmin(namespace),
                !provisional.admit(
                    namespace,
                    limit: context.configuration.maxProvisionalNamespaces,
                    isCreated: { context.database.isCreated($0) }
                )
            {
                context.logger.warning(
                    "realtime upgrade refused: too many namespaces opened that exist nowhere",
                    metadata: [
                        "hearth.ns": "\(namespace)",
                        "hearth.limit": "\(context.configuration.maxProvisionalNamespaces)",
                    ]
                )
                return nil
            }
            engine = try await context.engine(for: namespace)
        } catch {
            context.logger.error(
                "realtime namespace unavailable",
                metadata: ["hearth.ns": "\(namespace)", "hearth.error": "\(String(reflecting: error))"]
            )
            return nil
        }
        let sessionID = counter.nextSessionID()
        return RealtimeUpgrade(
            sessionID: sessionID,
            host: context.configuration.publicHost ?? authority ?? "localhost",
            work: RealtimeWork(
                connection: ConnectionID(sessionID),
                namespace: namespace,
                engine: engine,
                context: context
            ),
            ticker: ticker,
            inboxes: inboxes,
            limits: limits
        )
    }

    /// Holds the context once the store is open.
    final class ContextSlot: Sendable {
        /// With the connections' limits, made once from its configuration.
        let value = Mutex<(RealtimeContext, RealtimeConnectionLimits)?>(nil)
    }

    /// Session ids: 128 random bits (hex), so that one client cannot guess another's (a future
    /// `ls=` that retires the old session must not let a stranger end it).
    final class Counter: Sendable {
        func nextSessionID() -> String {
            var generator = SystemRandomNumberGenerator()
            let high = generator.next() as UInt64
            let low = generator.next() as UInt64
            return Self.hex(high) + Self.hex(low)
        }

        private static func hex(_ value: UInt64) -> String {
            let digits = String(value, radix: 16)
            return String(repeating: "0", count: 16 - digits.count) + digits
        }
    }
}

/// An accepted upgrade: what the connection's handler needs.
struct RealtimeUpgrade: Sendable {
    let sessionID: String
    /// The host named in the hello.
    let host: String
    /// The namespace's engine and context, for the connection `sessionID`.
    let work: RealtimeWork
    let ticker: RealtimeTicker
    let inboxes: RealtimeLoopInboxes<RealtimeChannelHandler>
    /// Shared by all connections of the server.
    let limits: RealtimeConnectionLimits
}
