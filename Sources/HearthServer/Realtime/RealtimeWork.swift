import HearthCore
import HearthDatabase
import HearthProtocol
import Logging

/// The database side of one WebSocket connection's session actions, without any connection
/// state: rules checks, listens, writes, reads and onDisconnect through the namespace's
/// `NamespaceEngine`. `RealtimeChannelHandler` runs each call in a short-lived task (writes: on
/// the writer's completion callback, no task) and hops the outcome back to its event loop.
struct RealtimeWork: Sendable {
    let connection: ConnectionID
    let namespace: String
    let engine: NamespaceEngine
    let context: RealtimeContext

    /// Registers `subscriber` (the engine checks read access in the snapshot it reads) and
    /// reads the initial value. Returns the outcome and, when listening, the registration (to
    /// store under `request.key`).
    func listen(
        _ request: ListenRequest,
        identity: AuthIdentity,
        subscriber: any ListenSubscriber
    ) async -> (RequestOutcome, ListenRegistration?) {
        let key = request.key
        let query = key.query == .default ? nil : request.query
        do {
            let start = try await engine.listen(
                path: request.path,
                query: query,
                subscriber: subscriber,
                as: identity.caller
            )
            if let hash = request.hash, !hash.isEmpty, hash == start.hash {
                return (.listeningUnchanged(warnings: start.warnings), start.registration)
            }
            return (.listening(data: start.data, warnings: start.warnings), start.registration)
        } catch {
            return (failure(error, doing: "listen"), nil)
        }
    }

    func write(_ request: WriteRequest, identity: AuthIdentity) async -> RequestOutcome {
        await withCheckedContinuation { continuation in
            write(request, identity: identity) { continuation.resume(returning: $0) }
        }
    }

    /// Writes without a task: `completion` runs on the store's writer (or at once, for an
    /// empty merge) and must only hand the outcome on.
    func write(
        _ request: WriteRequest,
        identity: AuthIdentity,
        in pass: WritePass? = nil,
        completion: @escaping @Sendable (RequestOutcome) -> Void
    ) {
        if case .merge(let merge) = request, merge.entries.isEmpty { return completion(.ok) }
        engine.write(Write(request: request), as: identity.caller, in: pass) { result in
            switch result {
            case .success(.committed):
                completion(.ok)
            case .success(.conditionFailed):
                completion(.failed(.dataStale, message: "The transaction's data is stale: the value changed."))
            case .failure(let error):
                completion(failure(error, doing: "write"))
            }
        }
    }

    func get(_ request: GetRequest, identity: AuthIdentity) async -> RequestOutcome {
        let key = ListenKey(path: request.path, query: request.query)
        let query = key.query == .default ? nil : request.query
        do {
            return .value(try await engine.get(path: request.path, query: query, as: identity.caller))
        } catch {
            return failure(error, doing: "get")
        }
    }

    /// Judged by the rules now, as Firebase does; runs unchecked on disconnect.
    func registerOnDisconnect(_ request: WriteRequest, identity: AuthIdentity) async -> RequestOutcome {
        do {
            try await engine.registerOnDisconnect(
                connection: connection,
                Write(request: request),
                as: identity.caller,
                limit: context.configuration.maxOnDisconnectOperations
            )
            return .ok
        } catch {
            return failure(error, doing: "onDisconnect")
        }
    }

    /// Cancelling only drops this connection's own writes, each judged when registered, so it
    /// needs no rules check of its own.
    func cancelOnDisconnect(at path: DataPath, identity: AuthIdentity) async -> RequestOutcome {
        do {
            try await engine.cancelOnDisconnect(connection: connection, at: path)
            return .ok
        } catch {
            return failure(error, doing: "onDisconnect cancel")
        }
    }

    /// Re-checks live listens for a new identity: returns the keys it may no longer read (their
    /// engine registrations are already gone); the others now evaluate with the new identity.
    func unreadable(_ listens: [(ListenKey, ListenRegistration)], identity: AuthIdentity) async -> [ListenKey] {
        var keys: [ListenKey] = []
        let caller = identity.caller
        for (key, registration) in listens where !(await engine.reauthorize(registration, as: caller)) {
            keys.append(key)
        }
        return keys
    }

    /// A failure answer (`ErrorAnswer`): the message of errors the client caused, a generic one
    /// (and a log line) for the rest.
    func failure(_ error: any Error, doing work: String) -> RequestOutcome {
        let answer = ErrorAnswer.to(error)
        if !answer.isInternal { return .failed(answer.wireStatus, message: answer.wireMessage) }
        context.logger.error(
            "realtime \(work) failed",
            metadata: [
                "hearth.connection": "\(connection)", "hearth.ns": "\(namespace)",
                "hearth.error": "\(String(reflecting: error))",
            ]
        )
        return .failed(answer.wireStatus, message: answer.wireMessage)
    }
}
