public import AsyncHTTPClient
import Foundation
import HearthCore
public import HearthDatabase
public import HearthFunctions
public import HearthPush
import Logging
import NIOCore
import NIOPosix
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The chat app's push notifications in `hearth serve`: one `PushDeliveryQueue` per chat
/// namespace, fed by the intents its triggers queue (`ChatApp.register(in:namespaces:pushes:)`
/// with `pushes: true`), delivering through one provider. The queues and the provider's HTTP
/// client share one event loop of the service's own, on a thread of lower priority than the
/// server's (`Settings.threadNiceness`).
public final class ChatPushService: DatabaseService, PushQueueStatus {
    /// The service's settings (typed configuration).
    public struct Settings: Sendable, Equatable {
        /// The most attempts in flight at once, per namespace.
        public var concurrency = 32
        public var retry = PushRetryPolicy()
        /// The niceness of the service's thread (0 to 19; Linux): how much CPU it yields to
        /// serving when both want it. 0 runs it like the server's own threads.
        public var threadNiceness: Int32 = 10

        public init() {}
    }

    public var name: String { "chat.push" }
    public let provider: String
    private let namespaces: [String]
    private let makeProvider: @Sendable (HTTPClient) throws -> any PushProvider
    private let settings: Settings
    /// Each namespace's running queue; commits are heard from the first run on.
    private let queues = Mutex<[String: PushDeliveryQueue]>([:])
    private let heard = Mutex<Set<String>>([])
    private let logger = Logger(label: "hearth.push")

    /// - Parameters:
    ///   - provider: `webhook` or `fcm`, as shown (`GET /.settings/push.json`).
    ///   - makeProvider: the provider, over the service's HTTP client.
    public init(
        provider: String,
        namespaces: Set<String>,
        settings: Settings = Settings(),
        makeProvider: @escaping @Sendable (HTTPClient) throws -> any PushProvider
    ) {
        self.provider = provider
        self.namespaces = namespaces.sorted()
        self.makeProvider = makeProvider
        self.settings = settings
    }

    public func run(database: Database) async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let loop = group.next()
        let niceness = settings.threadNiceness
        if niceness != 0 { try? await loop.submit { Self.lowerPriority(of: niceness) }.get() }
        let client = PushHTTPConfiguration().makeClient(on: group)
        var started: [PushDeliveryQueue] = []
        var failure: (any Error)?
        do {
            let provider = try makeProvider(client)
            var queueSettings = PushDeliveryQueue.Settings()
            queueSettings.concurrency = max(1, settings.concurrency)
            queueSettings.retry = settings.retry
            for namespace in namespaces {
                let engine = try await database.engine(for: namespace)
                var logger = logger
                logger[metadataKey: "hearth.ns"] = "\(namespace)"
                let queue = PushDeliveryQueue(
                    namespace: namespace,
                    loop: loop,
                    engine: engine,
                    provider: provider,
                    settings: queueSettings,
                    logger: logger
                )
                queues.withLock { $0[namespace] = queue }
                // Heard before the queue reads what is left, so no commit falls between.
                if heard.withLock({ $0.insert(namespace).inserted }) {
                    engine.onJobsQueued(in: PushQueues.intents) { [weak self] in
                        self?.queues.withLock { $0[namespace] }?.jobsQueued()
                    }
                }
                started.append(queue)
                try await queue.start()
            }
            while !Task.isCancelled { try? await Task.sleep(for: .seconds(3600)) }
        } catch {
            failure = error
        }
        for queue in started { await queue.stop() }
        queues.withLock { $0.removeAll() }
        try? await client.shutdown()
        try? await group.shutdownGracefully()
        if let failure, !Task.isCancelled { throw failure }
    }

    public func figures() async -> [String: PushQueueFigures] {
        var all: [String: PushQueueFigures] = [:]
        for (namespace, queue) in queues.withLock({ $0 }) { all[namespace] = await queue.currentFigures() }
        return all
    }

    /// Lowers the calling thread's priority (Linux: a thread's own niceness).
    private static func lowerPriority(of niceness: Int32) {
        #if canImport(Glibc)
        // Linux keeps the nice value per thread: "0" is the calling thread.
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, niceness)
        #endif
    }
}
