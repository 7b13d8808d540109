import HTTPTypes
import HearthDatabase
import HearthProtocol
import HummingbirdWebSocket
import Logging
import Synchronization

/// `ws://host:port/.ws?v=5&ns=NAME`: decides the upgrade. By default each WebSocket then runs
/// as a `RealtimeChannelHandler` on its event loop (`RealtimeChildChannel`: no task per
/// connection). With `RealtimeConfiguration.webSocketTransport == .hummingbird` it runs through
/// Hummingbird's WebSocket channel as one `RealtimeSession` driven by one loop
/// (`RealtimeConnection`), with a reader task feeding it frames, a writer task draining its
/// bounded outbound queue and a ticker.
struct RealtimeEndpoint: Sendable {
    typealias Handler = WebSocketDataHandler<HTTP1WebSocketUpgradeChannel.Context>

    static let path = "/.ws"
    static let protocolVersion = "5"

    private let slot = ContextSlot()
    private let counter = Counter()
    /// Ticks the lean path's connections, one repeated task per event loop.
    let ticker = RealtimeTicker()
    /// The lean path's engine deliveries, one inbox per event loop.
    let inboxes = RealtimeLoopInboxes()

    /// The endpoint exists before the store is open (the HTTP server is built first, so a bad
    /// TLS setup fails before anything touches the data); `attach` gives it the context.
    init() {}

    /// Connects the endpoint to the opened store's realtime context.
    func attach(_ context: RealtimeContext) {
        slot.value.withLock { $0 = context }
    }

    /// Decides the upgrade of a request for `target` (path and query, raw) sent to `authority`
    /// (the `Host` header): `/.ws?v=5` with a valid `ns` whose engine opens. Nil refuses it
    /// (400, `Connection: close`).
    func upgrade(target rawTarget: String, authority: String?) async -> RealtimeUpgrade? {
        guard let context = slot.value.withLock({ $0 }) else { return nil }
        let target = PercentDecoding.splitTarget(rawTarget)
        guard target.path == Self.path, let query = try? QueryString(target.query),
            query["v"] == Self.protocolVersion
        else { return nil }
        let namespace = query["ns"] ?? "default"
        guard RESTOptions.isValidNamespace(namespace) else { return nil }
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
            inboxes: inboxes
        )
    }

    /// Hummingbird's WebSocket path (`RealtimeConfiguration.webSocketTransport == .hummingbird`):
    /// the same decision, then one `run` per connection.
    /// `abort` closes the TCP connection at once (for a client that stopped reading).
    func shouldUpgrade(
        _ head: HTTPRequest,
        abort: @escaping @Sendable () -> Void
    ) async -> ShouldUpgradeResult<Handler> {
        guard let upgrade = await upgrade(target: head.path ?? "/", authority: head.authority) else {
            return .dontUpgrade
        }
        let work = upgrade.work
        return .upgrade([:]) { inbound, outbound, _ in
            try await Self.run(
                inbound: inbound,
                outbound: outbound,
                sessionID: upgrade.sessionID,
                host: upgrade.host,
                namespace: work.namespace,
                engine: work.engine,
                context: work.context,
                abort: abort
            )
        }
    }

    private enum ChildResult: Sendable {
        case writerDone
        case other
        case writerTimedOut
    }

    static func run(
        inbound: WebSocketInboundStream,
        outbound: WebSocketOutboundWriter,
        sessionID: String,
        host: String,
        namespace: String,
        engine: NamespaceEngine,
        context: RealtimeContext,
        abort: @escaping @Sendable () -> Void
    ) async throws {
        let configuration = context.configuration
        let logger = {
            var logger = context.logger
            logger[metadataKey: "hearth.connection"] = "\(sessionID)"
            logger[metadataKey: "hearth.ns"] = "\(namespace)"
            return logger
        }()
        let (events, continuation) = AsyncStream.makeStream(of: RealtimeEvent.self)
        let queue = OutboundQueue(maxBytes: configuration.maxQueuedBytes)
        let gate = FrameGate(limit: configuration.maxUnhandledFrames)
        let memberID = context.hub.register { continuation.yield(.drain) }
        defer { context.hub.unregister(memberID) }
        logger.debug("realtime connected")

        var connection = RealtimeConnection(
            id: ConnectionID(sessionID),
            namespace: namespace,
            engine: engine,
            context: context,
            events: continuation,
            queue: queue,
            logger: logger,
            session: RealtimeSession(
                sessionID: sessionID,
                configuration: RealtimeSessionConfiguration(maxMessageBytes: configuration.maxMessageBytes)
            )
        )
        let readerError = ErrorBox()

        await withTaskGroup(of: ChildResult.self) { group in
            group.addTask {
                await Self.write(queue, to: outbound, logger: logger)
                return .writerDone
            }
            group.addTask {
                do {
                    var iterator = inbound.messages(maxSize: configuration.maxMessageBytes).makeAsyncIterator()
                    while true {
                        await gate.enter()
                        if Task.isCancelled { break }
                        guard let message = try await iterator.next() else { break }
                        switch message {
                        case .text(let text): continuation.yield(.frame(Array(text.utf8)))
                        case .binary(let buffer): continuation.yield(.frame(Array(buffer.readableBytesView)))
                        }
                    }
                } catch is CancellationError {
                } catch {
                    // Close codes the library chose (1009 message too big, 1002 bad framing).
                    readerError.value.withLock { $0 = error }
                }
                continuation.yield(.inboundEnded)
                return .other
            }
            group.addTask {
                while !Task.isCancelled {
                    do { try await Task.sleep(for: configuration.tickInterval) } catch { break }
                    continuation.yield(.tick)
                }
                return .other
            }

            await connection.perform(connection.session.connected(host: host, now: RealtimeConnection.now()))
            for await event in events {
                await connection.handle(event)
                if case .frame = event { gate.leave() }
                if connection.isFinished { break }
            }
            continuation.finish()
            queue.end(.finish)
            // A client that stopped reading keeps the writer stuck in a write: give it the
            // close timeout, then drop the TCP connection.
            group.addTask {
                do { try await Task.sleep(for: configuration.closeTimeout) } catch { return .other }
                return .writerTimedOut
            }
            while let result = await group.next() {
                if case .writerDone = result { break }
                if case .writerTimedOut = result {
                    logger.notice("realtime writer stuck; dropping the connection")
                    abort()
                    break
                }
            }
            group.cancelAll()
        }
        logger.debug("realtime closed")
        if let error = readerError.value.withLock({ $0 }) { throw error }
    }

    /// The writer task: drains the queue, everything queued in one go, and sends the close
    /// frame the session asked for.
    static func write(_ queue: OutboundQueue, to outbound: WebSocketOutboundWriter, logger: Logger) async {
        var failed = false
        while let batch = await queue.next() {
            if !failed {
                do {
                    for frame in batch.frames {
                        try await outbound.write(.text(String(decoding: frame, as: UTF8.self)))
                    }
                } catch {
                    failed = true
                    logger.debug("realtime write failed", metadata: ["hearth.error": "\(error)"])
                }
            }
            queue.written(batch.byteCount)
            if case .close(let code, let reason)? = batch.ending, !failed {
                try? await outbound.close(.init(codeNumber: Int(code)), reason: reason)
            }
        }
    }

    /// Holds the context once the store is open.
    final class ContextSlot: Sendable {
        let value = Mutex<RealtimeContext?>(nil)
    }

    /// Where the reader task leaves the error that ended it.
    final class ErrorBox: Sendable {
        let value = Mutex<(any Error)?>(nil)
    }

    /// Session ids: unique per process, unguessable enough for logs and `ls` echoes.
    final class Counter: Sendable {
        private let state = Mutex<UInt64>(0)
        private let prefix = String(UInt32.random(in: 0...UInt32.max), radix: 36)

        func nextSessionID() -> String {
            let n = state.withLock { value -> UInt64 in
                value += 1
                return value
            }
            return "\(prefix)-\(String(n, radix: 36))"
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
    let inboxes: RealtimeLoopInboxes
}
