import HTTPTypes
import HearthAccounts
import HearthCore
import HearthDatabase
import HearthFunctions
import HearthStore
import Hummingbird
import Logging

/// Firebase's callable-function protocol over the server's callables: finds the callable the
/// target names in the namespace `?ns=` selects (`NOT_FOUND` when none is served there),
/// verifies the caller's credential as every other way in does (`UNAUTHENTICATED` without one
/// or with a bad one, before the body is read), reads and checks the body
/// (`CallableRequestBody`), calls the callable and answers `{"result": ...}` or
/// `{"error": {"status", "message"}}` with the matching HTTP status. CORS headers as for REST.
struct CallableEndpoint: Sendable {
    let database: Database
    let accounts: AccountsStore
    /// The server's files, for what a callable's change leaves behind.
    let files: (any CallableFiles)?
    let callables: Callables
    let credentials: CredentialResolver
    let cors: CORS
    /// The largest body a call may send.
    let maxBodyBytes: Int
    let bodyMemory: BodyMemoryBudget
    let logger: Logger

    func respond(to request: Request, route: CallableRoute) async -> Response {
        let started = ContinuousClock.now
        var namespace = "default"
        var response: Response
        do throws(CallableError) {
            response = try await handle(request, route: route, namespace: &namespace)
        } catch {
            if error.code == .internal {
                logger.error(
                    "callable failure",
                    metadata: ["hearth.callable": "\(route.name)", "hearth.error": "\(error.message)"]
                )
            }
            response = CallableResponse.error(error)
        }
        cors.decorate(&response)
        RequestLog.write(request, response, since: started, logger: logger) { _ in
            ["hearth.ns": "\(namespace)", "hearth.callable": "\(route.name)"]
        }
        return response
    }

    private func handle(
        _ request: Request,
        route: CallableRoute,
        namespace: inout String
    ) async throws(CallableError) -> Response {
        let query: QueryString
        do {
            query = try QueryString(PercentDecoding.splitTarget(request.head.path ?? "/").query)
        } catch {
            throw .invalidArgument(error.message)
        }
        if let ns = query["ns"] {
            guard RESTOptions.isValidNamespace(ns) else {
                throw .invalidArgument("Invalid namespace '\(ns)' in 'ns': use 1 to 63 letters, digits or '-'.")
            }
            namespace = ns
        }
        guard let callable = callables.callable(named: route.name, in: namespace) else {
            throw CallableError(.notFound, "No function named '\(route.name)' is served in namespace '\(namespace)'.")
        }
        // Firebase's callable handler refuses any other method as a bad request.
        guard request.method == .post else {
            throw .invalidArgument("Callable functions are called with POST, not \(request.method.rawValue).")
        }
        // In a cluster: accounts made, changed or revoked through other nodes before this call
        // are seen by it (its caller's token is checked against them, the callable reads them).
        do {
            try await accounts.synchronize()
        } catch {
            throw CallableError(.unavailable, "The cluster's accounts could not be read (\(error.message)); retry.")
        }
        let caller = try resolveCaller(request, query: query)
        let engine: NamespaceEngine
        do {
            engine = try await database.engine(for: namespace)
        } catch let error as StoreError where error.code == .notOwner {
            // In a cluster, the namespace is moving between nodes: a retry reaches its owner.
            throw CallableError(.unavailable, error.message)
        } catch {
            throw .internal(error)
        }
        let database = CallableDatabase(namespace: namespace, engine: engine)
        let accounts = self.accounts
        let files = self.files
        let result = try await CallableRequestBody.read(request, limit: maxBodyBytes, memory: bodyMemory) {
            (data: JSONValue) async throws(CallableError) -> JSONValue in
            try await callable.call(
                CallRequest(data: data, caller: caller, database: database, accounts: accounts, files: files)
            )
        }
        return CallableResponse.result(result)
    }

    /// The verified caller: the admin or a signed-in user. No credential, or one that is
    /// malformed, forged, expired or revoked (a disabled or deleted account), is refused.
    private func resolveCaller(_ request: Request, query: QueryString) throws(CallableError) -> Caller {
        let credential: Credential
        do {
            credential = try credentials.resolve(
                queryAuth: query["auth"],
                authorization: request.headers[.authorization]
            )
        } catch {
            throw CallableError(.unauthenticated, ErrorAnswer.credential(error).message)
        }
        guard credential != .anonymous else {
            throw CallableError(
                .unauthenticated,
                "Callable functions need a signed-in caller: send the user's ID token as 'Authorization: Bearer <token>'."
            )
        }
        return credential.caller
    }
}
