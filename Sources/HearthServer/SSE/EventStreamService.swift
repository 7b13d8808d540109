import Foundation
import HTTPTypes
import HearthCore
import HearthDatabase
import HearthProtocol
import Hummingbird
import HummingbirdCore
import Logging
import ServiceLifecycle

/// Firebase REST streaming: `GET /path.json` with `Accept: text/event-stream` answers a stream
/// of Server-Sent Events: `put` with the current data at `/`, then `put`/`patch` per change
/// (paths relative to the location), `keep-alive` on a timer, `cancel` when read access is lost
/// and `auth_revoked` when the credential expires. For the admin only, `shallow=true` streams a
/// page of children shallow (`ShallowStreamRange`, an extension; for anyone else it is refused
/// as before). The stream ends when the client goes away,
/// when the server shuts down (STACK: graceful-shutdown and inbound-close handlers end the
/// event loop) and when the client reads too slowly.
struct EventStreamService: Sendable {
    let context: RealtimeContext

    /// True for a `GET` that asks for an event stream of a data location.
    static func accepts(_ request: Request) -> Bool {
        guard request.method == .get,
            request.headers[values: .accept].contains(where: { $0.lowercased().contains("text/event-stream") })
        else { return false }
        let target = PercentDecoding.splitTarget(request.head.path ?? "/")
        return target.path.hasSuffix(".json") && target.path != RESTService.rulesPath
    }

    func respond(to request: Request) async throws -> Response {
        let target = PercentDecoding.splitTarget(request.head.path ?? "/")
        let queryString = try QueryString(target.query)
        // The options as REST reads them; an admin's shallow stream may also end its range (`endAt`).
        let strict = Result { try RESTOptions.parse(queryString) }
        var lenient: RESTOptions?
        if queryString["shallow"] == "true" { lenient = try? RESTOptions.parse(queryString, shallowStream: true) }
        let options = try lenient ?? strict.get()
        var credential = try context.credentials.resolver.resolve(
            queryAuth: options.auth,
            authorization: request.headers[.authorization]
        )
        if let override = options.authVariableOverride {
            credential = try RESTService.overriddenCredential(credential, with: override)
        }
        let decoded = try RESTService.decodePath(String(target.path))
        let (path, isPriority) = try CoreBridge.parseWritePath(decoded)
        if isPriority { throw RESTError.badRequest("Invalid path '\(decoded)': '.priority' cannot be streamed.") }
        let identity = context.credentials.identity(forCredential: credential)
        // An admin acting as a user (`auth_variable_override`) is not that user's presence.
        let countsForPresence = options.authVariableOverride == nil
        var shallow: ShallowRange?
        if let requested = options.shallow {
            // Everyone but the admin gets the answer they always got (Firebase streams nothing shallow).
            guard identity.caller.bypassesRules else {
                _ = try strict.get()
                throw RESTError.badRequest("shallow is not supported by streaming reads.")
            }
            shallow = try ShallowStreamRange.range(of: requested)
        }
        let namespace = options.namespace
        let engine = try await context.database.open(namespace, as: identity.caller)
        guard try await engine.canRead(path: path, query: options.query, as: identity.caller) else {
            throw RESTError.permissionDenied
        }
        let stream = EventStream(
            context: context,
            engine: engine,
            location: path,
            query: options.query,
            shallow: shallow,
            format: options.format,
            identity: identity,
            namespace: namespace,
            countsForPresence: countsForPresence
        )
        return Response(
            status: .ok,
            headers: [
                .contentType: "text/event-stream; charset=utf-8",
                .cacheControl: "no-cache",
                // The connection ends with the stream (`consumeWithInboundCloseHandler` closes
                // it): said up front, so a keep-alive client does not pool it and send its next
                // request into the close.
                .connection: "close",
            ],
            body: ResponseBody { writer in
                try await request.body.consumeWithInboundCloseHandler { _ in
                    try await stream.run(writer: &writer)
                } onInboundClosed: {
                    stream.subscriber.end()
                }
                try await writer.finish(nil)
            }
        )
    }
}

/// One open SSE stream: its engine registration, queue, keep-alive timer and writer loop.
struct EventStream: Sendable {
    let context: RealtimeContext
    let engine: NamespaceEngine
    let location: DataPath
    let query: Query?
    /// An admin's shallow page (`query` is then nil).
    let shallow: ShallowRange?
    let format: RenderFormat
    let identity: AuthIdentity
    let namespace: String
    /// The stream counts in server-kept presence while it streams (a user's own credential).
    let countsForPresence: Bool
    let subscriber: EventStreamSubscriber

    init(
        context: RealtimeContext,
        engine: NamespaceEngine,
        location: DataPath,
        query: Query?,
        shallow: ShallowRange? = nil,
        format: RenderFormat,
        identity: AuthIdentity,
        namespace: String,
        countsForPresence: Bool = false
    ) {
        self.context = context
        self.engine = engine
        self.location = location
        self.query = query
        self.shallow = shallow
        self.format = format
        self.identity = identity
        self.namespace = namespace
        self.countsForPresence = countsForPresence
        self.subscriber = EventStreamSubscriber(
            location: location,
            format: format,
            queue: OutboundQueue(maxBytes: context.configuration.maxQueuedBytes)
        )
    }

    func run(writer: inout any ResponseBodyWriter) async throws {
        let subscriber = self.subscriber
        let memberID = context.hub.register(namespace: namespace) { subscriber.end() }
        defer { context.hub.unregister(memberID) }
        let registration: ListenRegistration
        do {
            let start: ListenStart
            if let shallow {
                start = try await engine.listenShallow(
                    path: location,
                    range: shallow,
                    subscriber: subscriber,
                    as: identity.caller
                )
            } else {
                start = try await engine.listen(
                    path: location,
                    query: query,
                    subscriber: subscriber,
                    as: identity.caller
                )
            }
            registration = start.registration
            subscriber.start(initial: start.data)
        } catch let error as StoreError where error.code == .permissionDenied {
            // Access was lost between the check and the listen.
            subscriber.revoke(with: .cancel(reason: "Permission denied"))
            try await drain(into: &writer)
            return
        } catch {
            context.logger.error(
                "event stream listen failed",
                metadata: ["hearth.ns": "\(namespace)", "hearth.error": "\(String(reflecting: error))"]
            )
            subscriber.revoke(with: .cancel(reason: "The server could not read this location."))
            try await drain(into: &writer)
            return
        }
        defer { engine.unlisten(registration) }
        // Online while it streams: from its first `put` until it ends (the client went, the
        // credential expired or was revoked, access was lost, the server stops).
        let presence = countsForPresence ? context.presence.join(identity, namespace: namespace) : nil
        defer { if let presence { context.presence.leave(presence) } }
        try await withGracefulShutdownHandler {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { await self.keepAlive() }
                defer { group.cancelAll() }
                try await drain(into: &writer)
            }
        } onGracefulShutdown: {
            subscriber.end()
        }
    }

    /// Writes every batch of queued events as one chunk until the queue ends.
    private func drain(into writer: inout any ResponseBodyWriter) async throws {
        let queue = subscriber.queue
        while let batch = await queue.next() {
            var buffer = ByteBuffer()
            buffer.reserveCapacity(batch.byteCount)
            for event in batch.frames { buffer.writeBytes(event) }
            defer { queue.written(batch.byteCount) }
            if buffer.readableBytes > 0 { try await writer.write(buffer) }
        }
    }

    /// `keep-alive` every interval; `auth_revoked` once the credential has expired or the
    /// accounts store revoked it (checked every `credentialCheckInterval`).
    private func keepAlive() async {
        let interval = context.configuration.sseKeepAliveInterval
        let check = min(interval, Self.credentialCheckInterval)
        let clock = ContinuousClock()
        var nextKeepAlive = clock.now + interval
        while !Task.isCancelled {
            do { try await Task.sleep(for: check) } catch { return }
            if let expiry = identity.expiresAt, Timestamp.now() >= expiry {
                subscriber.revoke(with: .authRevoked(reason: "Auth token is expired."))
                return
            }
            if let probe = identity.revocation, probe.isRevoked {
                subscriber.revoke(with: .authRevoked(reason: "Auth token is revoked: sign in again."))
                return
            }
            guard clock.now >= nextKeepAlive else { continue }
            nextKeepAlive = clock.now + interval
            if !subscriber.send(.keepAlive) { return }
        }
    }

    static let credentialCheckInterval: Duration = .seconds(1)
}
