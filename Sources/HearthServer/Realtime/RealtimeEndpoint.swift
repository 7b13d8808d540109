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
    /// In a cluster: where a namespace other nodes own is relayed (`attach(cluster:)`).
    private let clusterSlot = ClusterSlot()
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

    /// Relays WebSockets of namespaces other nodes own (`hearth serve --cluster`).
    func attach(cluster: ClusterRouting) {
        clusterSlot.value.withLock { $0 = cluster }
    }

    /// Decides the upgrade of a request for `target` (path and query, raw) sent to `authority`
    /// (the `Host` header): `/.ws?v=5` with a valid `ns` whose engine opens, or in a cluster
    /// whose owner takes the relayed connection. Nil refuses it (400, `Connection: close`).
    /// - Parameter forwarded: the `Hearth-Forwarded` header's value, if any.
    func upgrade(target rawTarget: String, authority: String?, forwarded: String? = nil) async -> RealtimeAcceptance? {
        guard let (context, limits) = slot.value.withLock({ $0 }) else { return nil }
        let target = PercentDecoding.splitTarget(rawTarget)
        guard target.path == Self.path, let query = try? QueryString(target.query),
            query["v"] == Self.protocolVersion
        else { return nil }
        let namespace = query["ns"] ?? "default"
        guard RESTOptions.isValidNamespace(namespace) else { return nil }
        do {
            // A namespace that exists nowhere and has no rules file refuses all but the admin:
            // such upgrades are bounded before anything (a lease in a cluster) is taken for them.
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
        } catch {
            return nil
        }
        var relayedByNode = false
        if let cluster = clusterSlot.value.withLock({ $0 }) {
            switch await cluster.realtimeRoute(namespace, forwarded: forwarded) {
            case .local(let relayed):
                relayedByNode = relayed
            case .relay(let ownerURL):
                return .relay(
                    ClusterRelayTarget(
                        ownerURL: ownerURL,
                        target: rawTarget,
                        host: authority,
                        stamp: cluster.forwarder.stamp(),
                        maxFrameBytes: context.configuration.maxFrameBytes,
                        ownerUnreachable: { cluster.membership.forgetOwner(namespace) }
                    )
                )
            case .refused:
                return nil
            }
        }
        let engine: NamespaceEngine
        do {
            engine = try await context.engine(for: namespace)
        } catch {
            context.logger.error(
                "realtime namespace unavailable",
                metadata: ["hearth.ns": "\(namespace)", "hearth.error": "\(String(reflecting: error))"]
            )
            return nil
        }
        let sessionID = counter.nextSessionID()
        return .serve(
            RealtimeUpgrade(
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
                limits: limits,
                relayedByNode: relayedByNode
            )
        )
    }

    final class ClusterSlot: Sendable {
        let value = Mutex<ClusterRouting?>(nil)
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

/// What an accepted upgrade runs: a realtime session here, or a relay to the namespace's owner.
enum RealtimeAcceptance: Sendable {
    case serve(RealtimeUpgrade)
    case relay(ClusterRelayTarget)
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
    /// Relayed by another node of the cluster (a valid `Hearth-Forwarded` stamp): that node
    /// limits its client's address, so the connection leaves the relaying node's share of the
    /// per-address cap here.
    var relayedByNode = false
}
