import HearthCore
import HearthDatabase
import HearthFunctions
import Hummingbird
import Logging

/// The router's cluster step (`HearthRouter`): `GET /.well-known/hearth/cluster`, and every
/// request for a namespace another node owns forwarded to it. Which requests are a
/// namespace's: REST and SSE (`*.json` with `ns`, `default` without), the namespace's rules (their
/// rollback, the simulator) and the callables; health, metrics, the console and the namespace list are this node's own.
/// A resumable upload's requests go to the node holding its session (`forwardUploadSession`);
/// a Firebase Storage request whose rules read the database, to that namespace's owner
/// (`forwardStorageReadingDatabase`).
struct ClusterRouting: Sendable {
    static let path = "/.well-known/hearth/cluster"

    let membership: ClusterMembership
    let forwarder: ClusterForwarder
    let database: Database
    let credentials: CredentialResolver
    /// The callables served, by namespace: a call goes to the owner only where its callable is
    /// served.
    let callables: Callables
    /// The namespace storage rules read (`database.get/exists`), and whether the storage rules
    /// in force read it (`forwardStorageReadingDatabase`).
    let storageNamespace: String
    let storageRulesReadDatabase: @Sendable () -> Bool
    /// Runs account-deletion handler `index` for a uid here (`deleteAccountData`).
    let runAccountDeletion: @Sendable (_ index: Int, _ uid: String) async throws -> Void
    let logger: Logger

    /// Whether `request` came from another node of the cluster (it was counted there).
    func isForwarded(_ request: Request) -> Bool {
        forwarder.isForwarded(request)
    }

    /// The answer when this node does not answer `request` itself; nil when it does.
    func intercept(
        _ request: Request,
        route: HearthRoute,
        target: (path: Substring, query: Substring?)
    ) async -> Response? {
        if target.path == Self.path { return await view(request, query: target.query) }
        if target.path == Self.accountDeletionPath { return await deleteAccountData(request, query: target.query) }
        if let answer = await forwardUploadSession(request, route: route, query: target.query) { return answer }
        if let answer = await forwardStorageReadingDatabase(request, route: route, query: target.query) {
            return answer
        }
        guard request.method != .options, isNamespaceRequest(route, path: target.path) else { return nil }
        let namespace: String
        do {
            namespace = try QueryString(target.query)["ns"] ?? "default"
        } catch {
            return nil  // the way in answers the bad query itself
        }
        // A name no namespace can have is refused by the way in, here as everywhere.
        guard RESTOptions.isValidNamespace(namespace) else { return nil }
        // A callable is served whatever the namespace's rules (it acts for its caller with the
        // app's own rights), so it goes where its namespace is owned; where it is not served,
        // the way in answers 404 and no lease is taken. Anything else of a namespace without
        // rules of its own (a file here or the cluster's) is refused to all but the admin,
        // wherever it is owned: such a request is refused here, and takes no lease.
        if case .callable(let callable) = route {
            guard callables.callable(named: callable.name, in: namespace) != nil else { return nil }
        } else if !database.hasRulesFile(namespace), !credentials.isAdmin(request, query: target.query) {
            // (A rules file here settles it without verifying the caller's token twice.)
            do {
                guard try await database.hasRules(namespace) else { return nil }
            } catch {
                return routeFailed(namespace, error)
            }
        }
        return await sendToOwner(request, namespace: namespace)
    }

    /// `request` forwarded to the node that owns `namespace`; nil when this node owns it. A
    /// request another node forwarded is not forwarded again (503: the namespace is moving).
    func sendToOwner(_ request: Request, namespace: String) async -> Response? {
        do {
            switch try await membership.route(namespace) {
            case .local:
                return nil
            case .ownerSilent:
                return Self.unavailable(
                    "The node serving namespace '\(namespace)' stopped answering; another node takes it over within \(membership.leaseSeconds) s: retry."
                )
            case .forward(let url):
                if isForwarded(request) {
                    return Self.unavailable("Namespace '\(namespace)' is moving between nodes; retry.")
                }
                do {
                    return try await forwarder.forward(request, to: url)
                } catch {
                    membership.forgetOwner(namespace)
                    throw error
                }
            }
        } catch {
            return routeFailed(namespace, error)
        }
    }

    private func routeFailed(_ namespace: String, _ error: any Error) -> Response {
        logger.warning("cluster route failed", metadata: ["hearth.ns": "\(namespace)", "hearth.error": "\(error)"])
        return Self.unavailable("Namespace '\(namespace)' cannot be served now (\(error)); retry.")
    }

    enum RealtimeRoute: Sendable {
        /// Served here; `relayedByNode`: another node of the cluster relays it (its stamp
        /// verified).
        case local(relayedByNode: Bool)
        case relay(String)
        case refused
    }

    /// Where a WebSocket upgrade for `namespace` goes. One another node relayed (`forwarded`
    /// verified) is never relayed again.
    func realtimeRoute(_ namespace: String, forwarded: String?) async -> RealtimeRoute {
        let fromNode = forwarded.map { forwarder.isValidStamp($0) } ?? false
        do {
            // A WebSocket learns who its client is only after it connects (the SDKs' admin and
            // emulator tokens too), so even one for a namespace nobody wrote takes it: a
            // namespace that stays unwritten and unused is dropped again after a lease
            // (`ClusterMembership.dropIdleUnwritten`).
            switch try await membership.route(namespace) {
            case .local: return .local(relayedByNode: fromNode)
            case .forward(let url): return fromNode ? .refused : .relay(url)
            case .ownerSilent: return .refused
            }
        } catch {
            logger.warning("cluster route failed", metadata: ["hearth.ns": "\(namespace)", "hearth.error": "\(error)"])
            return .refused
        }
    }

    private func isNamespaceRequest(_ route: HearthRoute, path: Substring) -> Bool {
        switch route {
        case .callable: return true
        case .database:
            // The simulator judges the namespace's data; `:check` reads none and stays here.
            return (path.hasSuffix(".json") && path != "/.settings/namespaces.json")
                || path == "/.settings/rules:rollback" || path == RESTService.simulatePath
        default: return false
        }
    }

    private func view(_ request: Request, query: Substring?) async -> Response {
        guard credentials.isAdmin(request, query: query) else {
            return ResponseBuilder.json(
                #"{"error":"GET /.well-known/hearth/cluster needs the admin credential: 'Authorization: Bearer <admin secret>'."}"#,
                status: .unauthorized
            )
        }
        // What this node serves, by its own clock: answered whether or not PostgreSQL is.
        let this: JSONValue = .object([
            ("id", .string(membership.nodeID)),
            (
                "serving",
                .object(membership.serving().sorted { $0.key < $1.key }.map { ($0.key, .number(Double($0.value))) })
            ),
        ])
        do {
            let (nodes, owners) = try await membership.view()
            let body: JSONValue = .object([
                ("this", this),
                (
                    "nodes",
                    .array(
                        nodes.map {
                            .object([("id", .string($0.id)), ("url", .string($0.url)), ("alive", .bool($0.alive))])
                        }
                    )
                ),
                ("owners", .object(owners.sorted { $0.key < $1.key }.map { ($0.key, JSONValue.string($0.value)) })),
            ])
            var out: [UInt8] = []
            JSONRenderer.render(body, into: &out)
            return ResponseBuilder.json(out)
        } catch {
            return Self.unavailable("The cluster's PostgreSQL did not answer (\(error)).", this: this)
        }
    }

    static func unavailable(_ message: String, this: JSONValue? = nil) -> Response {
        var out: [UInt8] = []
        var fields: [(String, JSONValue)] = [("error", .string(message))]
        if let this { fields.append(("this", this)) }
        JSONRenderer.render(.object(fields), into: &out)
        var response = ResponseBuilder.json(out, status: .serviceUnavailable)
        response.headers[.retryAfter] = "1"
        return response
    }
}
