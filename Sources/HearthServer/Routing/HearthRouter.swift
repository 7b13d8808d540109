import HTTPTypes
import Hummingbird

/// The server's one responder: routes each request by `HearthRoute` to the entry point of its
/// way in, after the client address's request rate (`RequestRateLimiter`: 429 with
/// `Retry-After`, before anything else reads it), and counts every answer by `MetricsRoute` and
/// status (`ServerMetrics`).
struct HearthRouter: HTTPResponder {
    typealias Context = PeerRequestContext

    let metrics: ServerMetrics
    let metricsEndpoint: MetricsEndpoint
    let limiter: RequestRateLimiter?
    let backup: BackupEndpoint
    let accounts: AccountsEndpoint
    let callables: CallableEndpoint
    let storage: StorageEndpoint
    /// REST, SSE, rules, health, the console and every preflight.
    let database: HearthResponder
    /// In a cluster: the cluster's view, and requests for namespaces other nodes own forwarded.
    var cluster: ClusterRouting? = nil
    /// In a cluster: the connections' cap, whose per-address share another node's connections
    /// leave once they show its stamp.
    var cap: ConnectionCap? = nil

    func respond(to request: Request, context: PeerRequestContext) async throws -> Response {
        let started = ContinuousClock.now
        let target = PercentDecoding.splitTarget(request.head.path ?? "/")
        let response = try await route(request, target: target, context: context)
        let counted = MetricsRoute(path: target.path, request: request)
        metrics.request(route: counted.rawValue, status: response.status.code, duration: ContinuousClock.now - started)
        if counted == .accounts, target.path.hasSuffix("accounts:signInWithPassword"), request.method == .post {
            metrics.signIn(succeeded: response.status == .ok)
        }
        return response
    }

    private func route(
        _ request: Request,
        target: (path: Substring, query: Substring?),
        context: PeerRequestContext
    ) async throws -> Response {
        let route = HearthRoute(request, target: target)
        // A request another node forwarded was counted there, against its client's address;
        // so is the connection it came on (`ClusterRESTRelay` keeps one per request in flight).
        let forwarded = cluster?.isForwarded(request) == true
        if forwarded { cap?.exempt(context.channel) }
        if route.countsAgainstRate, let limiter, !forwarded, !limiter.admit(context.clientAddress) {
            return Self.tooManyRequests(limiter)
        }
        if let cluster, let answer = await cluster.intercept(request, route: route, target: target) {
            return answer
        }
        switch route {
        case .metrics(let query):
            return await metricsEndpoint.respond(to: request, query: query)
        case .backup(let query):
            return try await backup.respond(to: request, query: query)
        case .accounts(let accountsRoute):
            return await accounts.respond(to: request, route: accountsRoute, clientAddress: context.clientAddress)
        case .callable(let callableRoute):
            return await callables.respond(to: request, route: callableRoute)
        case .storage(let storageRoute):
            return await storage.respond(to: request, route: storageRoute, channel: context.channel)
        case .gcs(let gcsRoute):
            return await storage.respond(to: request, gcs: gcsRoute, channel: context.channel)
        case .storageRules(let action, let query):
            return await storage.respond(to: request, rules: action, query: query)
        case .database:
            return try await database.respond(to: request, context: BasicRequestContext(source: context.source))
        }
    }

    private static func tooManyRequests(_ limiter: RequestRateLimiter) -> Response {
        var response = ResponseBuilder.json(
            #"{"error":"Too many requests from your address: at most \#(Int(limiter.rate)) a second; retry shortly."}"#,
            status: .tooManyRequests
        )
        response.headers[.retryAfter] = "1"
        return response
    }
}
