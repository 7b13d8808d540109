import HearthCore
import HearthDatabase
import HearthProtocol
import HearthStore
import Logging

/// The database side of one WebSocket connection's session actions, without any connection
/// state: rules checks, listens, writes, reads and onDisconnect through the namespace's
/// `NamespaceEngine`. `RealtimeChannelHandler` runs each call in a short-lived task and hops the
/// outcome back to its event loop.
struct RealtimeWork: Sendable {
    let connection: ConnectionID
    let namespace: String
    let engine: NamespaceEngine
    let context: RealtimeContext

    /// Checks read access, registers `subscriber` and reads the initial value. Returns the
    /// outcome and, when listening, the registration (to store under `request.key`).
    func listen(
        _ request: ListenRequest,
        identity: AuthIdentity,
        subscriber: any ListenSubscriber
    ) async -> (RequestOutcome, ListenRegistration?) {
        let key = request.key
        let query = key.query == .default ? nil : request.query
        guard await context.access.mayRead(identity, at: request.path, query: query, in: namespace) else {
            return (.permissionDenied, nil)
        }
        do {
            let start = try await engine.listen(path: request.path, query: query, subscriber: subscriber)
            if let hash = request.hash, !hash.isEmpty, hash == start.hash {
                return (.listeningUnchanged(warnings: start.warnings), start.registration)
            }
            return (.listening(data: start.data, warnings: start.warnings), start.registration)
        } catch {
            return (failure(error, doing: "listen"), nil)
        }
    }

    func write(_ request: WriteRequest, identity: AuthIdentity) async -> RequestOutcome {
        guard await context.access.mayWrite(identity, at: request.path, in: namespace) else {
            return .permissionDenied
        }
        if case .merge(let merge) = request, merge.entries.isEmpty { return .ok }
        do {
            switch try await engine.write(Write(request: request)) {
            case .committed:
                return .ok
            case .conditionFailed:
                return .failed(.dataStale, message: "The transaction's data is stale: the value changed.")
            }
        } catch {
            return failure(error, doing: "write")
        }
    }

    func get(_ request: GetRequest, identity: AuthIdentity) async -> RequestOutcome {
        let key = ListenKey(path: request.path, query: request.query)
        let query = key.query == .default ? nil : request.query
        guard await context.access.mayRead(identity, at: request.path, query: query, in: namespace) else {
            return .permissionDenied
        }
        do {
            return .value(try await engine.get(path: request.path, query: query))
        } catch {
            return failure(error, doing: "get")
        }
    }

    func registerOnDisconnect(_ request: WriteRequest, identity: AuthIdentity) async -> RequestOutcome {
        guard await context.access.mayWrite(identity, at: request.path, in: namespace) else {
            return .permissionDenied
        }
        engine.registerOnDisconnect(connection: connection, Write(request: request))
        return .ok
    }

    func cancelOnDisconnect(at path: DataPath, identity: AuthIdentity) async -> RequestOutcome {
        guard await context.access.mayWrite(identity, at: path, in: namespace) else {
            return .permissionDenied
        }
        engine.cancelOnDisconnect(connection: connection, at: path)
        return .ok
    }

    /// The listens of `listens` (key and its query) that `identity` may no longer read.
    func unreadable(_ listens: [(ListenKey, Query?)], identity: AuthIdentity) async -> [ListenKey] {
        var keys: [ListenKey] = []
        for (key, query) in listens {
            if await context.access.mayRead(identity, at: key.path, query: query, in: namespace) { continue }
            keys.append(key)
        }
        return keys
    }

    /// A failure answer: the message of errors the client caused, a generic one (and a log
    /// line) for the rest.
    func failure(_ error: any Error, doing work: String) -> RequestOutcome {
        switch error {
        case let error as CoreError:
            return .failed(.failure, message: error.message)
        case let error as StoreError:
            switch error.code {
            case .indexNotDefined, .invalidWrite, .invalidNamespace:
                return .failed(.failure, message: error.message)
            default:
                break
            }
        default:
            break
        }
        context.logger.error(
            "realtime \(work) failed",
            metadata: [
                "hearth.connection": "\(connection)", "hearth.ns": "\(namespace)",
                "hearth.error": "\(String(reflecting: error))",
            ]
        )
        return .failed(.failure, message: "The server could not complete the request.")
    }
}
