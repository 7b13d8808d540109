import Foundation
import HearthCore
import HearthDatabase
import HearthProtocol
import HearthStore
import Logging

/// The state of one WebSocket connection, owned by its loop: the `RealtimeSession`, the
/// engine registrations of its listens, and the actions it performs. Nothing here is shared;
/// other tasks reach it only through `RealtimeEvent`s.
struct RealtimeConnection {
    let id: ConnectionID
    let namespace: String
    let engine: NamespaceEngine
    let context: RealtimeContext
    let events: AsyncStream<RealtimeEvent>.Continuation
    let queue: OutboundQueue
    let logger: Logger

    var session: RealtimeSession
    /// Engine registrations by listen key; the generation tells pushes of a replaced listen apart.
    var registrations: [ListenKey: (generation: UInt64, registration: ListenRegistration, forwarder: ListenForwarder)] =
        [:]
    var nextGeneration: UInt64 = 0
    /// The session is over (`.connectionClosed` performed).
    var isFinished = false
    /// Set when the outbound queue overflowed: the close that follows drops what is queued.
    var slowConsumer = false

    static func now() -> Timestamp {
        Timestamp(millisecondsSince1970: Int64((Date().timeIntervalSince1970 * 1000).rounded()))
    }

    /// Handles one event.
    mutating func handle(_ event: RealtimeEvent) async {
        switch event {
        case .frame(let bytes):
            await perform(session.received(frame: bytes, now: Self.now()))
        case .update(let update, let key, let generation):
            guard registrations[key]?.generation == generation else { return }
            await perform(session.push(encoded: update, for: key))
        case .revoked(let key, let generation):
            guard registrations[key]?.generation == generation else { return }
            registrations[key] = nil
            await perform(session.revokeListen(key))
        case .tick:
            await perform(session.tick(now: Self.now()))
        case .drain:
            await perform(session.close(code: .goingAway, reason: "The server is shutting down."))
        case .inboundEnded:
            await perform(session.closed())
        }
    }

    /// Performs `actions` in order; completions insert the session's next actions in place.
    mutating func perform(_ actions: [SessionAction]) async {
        var pending = actions
        var index = 0
        var outgoing: [[UInt8]] = []
        while index < pending.count {
            let action = pending[index]
            index += 1
            var next: [SessionAction] = []
            switch action {
            case .send(let frame):
                outgoing.append(frame)
                continue
            case .close(let code, let reason):
                if !slowConsumer { flush(&outgoing, into: &next) }
                outgoing = []
                queue.end(.close(code: code.rawValue, reason: reason), discardPending: slowConsumer)
            case .connectionClosed:
                flush(&outgoing, into: &next)
                await connectionClosed()
            default:
                flush(&outgoing, into: &next)
                if next.isEmpty {
                    next = await performDatabaseAction(action)
                }
            }
            pending.insert(contentsOf: next, at: index)
        }
        var tail: [SessionAction] = []
        flush(&outgoing, into: &tail)
        if !tail.isEmpty { await perform(tail) }
    }

    /// Moves the frames gathered so far into the outbound queue; on overflow, asks the session
    /// to close the connection as a slow consumer.
    mutating func flush(_ outgoing: inout [[UInt8]], into next: inout [SessionAction]) {
        guard !outgoing.isEmpty else { return }
        defer { outgoing = [] }
        guard !slowConsumer, !queue.enqueue(outgoing) else { return }
        slowConsumer = true
        logger.notice(
            "realtime slow consumer",
            metadata: ["hearth.connection": "\(id)", "hearth.queued_bytes": "\(queue.pendingBytes)"]
        )
        next += session.close(
            code: .policyViolation,
            reason: "Slow consumer: more than \(queue.maxBytes) bytes waited to be sent."
        )
    }

    /// The database work of one action; returns the session's follow-up actions.
    mutating func performDatabaseAction(_ action: SessionAction) async -> [SessionAction] {
        switch action {
        case .listen(let request, let requestID, let identity):
            return session.completed(await listen(request, identity: identity), for: requestID)
        case .unlisten(let key):
            if let entry = registrations.removeValue(forKey: key) { engine.unlisten(entry.registration) }
            return []
        case .write(let request, let requestID, let identity):
            return session.completed(await work.write(request, identity: identity), for: requestID)
        case .registerOnDisconnect(let request, let requestID, let identity):
            return session.completed(await work.registerOnDisconnect(request, identity: identity), for: requestID)
        case .cancelOnDisconnect(let path, let requestID, let identity):
            return session.completed(await work.cancelOnDisconnect(at: path, identity: identity), for: requestID)
        case .authenticate(let request, let requestID):
            return session.completed(context.credentials.authenticate(request), for: requestID)
        case .identityChanged(let identity):
            return await recheckListens(identity)
        case .get(let request, let requestID, let identity):
            return session.completed(await work.get(request, identity: identity), for: requestID)
        case .stats:
            return []
        case .send, .close, .connectionClosed:
            return []
        }
    }

    mutating func listen(_ request: ListenRequest, identity: AuthIdentity) async -> RequestOutcome {
        let key = request.key
        let query = key.query == .default ? nil : request.query
        if let old = registrations.removeValue(forKey: key) { engine.unlisten(old.registration) }
        nextGeneration += 1
        let forwarder = ListenForwarder(key: key, generation: nextGeneration, events: events)
        do {
            let start = try await engine.listen(
                path: request.path,
                query: query,
                subscriber: forwarder,
                as: identity.caller
            )
            registrations[key] = (nextGeneration, start.registration, forwarder)
            if let hash = request.hash, !hash.isEmpty, hash == start.hash {
                return .listeningUnchanged(warnings: start.warnings)
            }
            return .listening(data: start.data, warnings: start.warnings)
        } catch {
            return work.failure(error, doing: "listen")
        }
    }

    /// Revokes the listens `identity` may no longer read.
    mutating func recheckListens(_ identity: AuthIdentity) async -> [SessionAction] {
        var actions: [SessionAction] = []
        let listens = registrations.map { ($0.key, $0.value.registration) }
        for key in await work.unreadable(listens, identity: identity) {
            if let entry = registrations.removeValue(forKey: key) { engine.unlisten(entry.registration) }
            actions += session.revokeListen(key)
        }
        return actions
    }

    /// Drops every listener and runs the connection's onDisconnect writes.
    mutating func connectionClosed() async {
        guard !isFinished else { return }
        isFinished = true
        for entry in registrations.values { engine.unlisten(entry.registration) }
        registrations = [:]
        await engine.runOnDisconnect(connection: id)
    }

    /// The connection's database work (shared with `RealtimeChannelHandler`).
    var work: RealtimeWork {
        RealtimeWork(connection: id, namespace: namespace, engine: engine, context: context)
    }
}
