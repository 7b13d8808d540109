import HTTPTypes
import Hummingbird

/// The server's outermost responder: answers `GET /metrics` (the admin credential only; the
/// Prometheus text format) and counts every other request by route and status as it is
/// answered (`ServerMetrics`).
struct MetricsRouter<Inner: HTTPResponder>: HTTPResponder where Inner.Context == PeerRequestContext {
    typealias Context = PeerRequestContext

    let inner: Inner
    let metrics: ServerMetrics
    let credentials: CredentialResolver

    func respond(to request: Request, context: PeerRequestContext) async throws -> Response {
        let started = ContinuousClock.now
        let target = PercentDecoding.splitTarget(request.head.path ?? "/")
        let route = MetricsRoute(path: target.path, request: request)
        let response: Response
        if route == .metrics, request.method == .get || request.method == .head {
            response = scrape(request, query: target.query)
        } else {
            response = try await inner.respond(to: request, context: context)
        }
        metrics.request(route: route.rawValue, status: response.status.code, duration: ContinuousClock.now - started)
        if route == .accounts, target.path.hasSuffix("accounts:signInWithPassword"), request.method == .post {
            metrics.signIn(succeeded: response.status == .ok)
        }
        return response
    }

    private func scrape(_ request: Request, query: Substring?) -> Response {
        guard credentials.isAdmin(request, query: query) else {
            return ResponseBuilder.json(
                #"{"error":"GET /metrics needs the admin credential: 'Authorization: Bearer <admin secret>'."}"#,
                status: .unauthorized
            )
        }
        let headers: HTTPFields = [.contentType: "text/plain; version=0.0.4; charset=utf-8", .cacheControl: "no-cache"]
        return Response(
            status: .ok,
            headers: headers,
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: metrics.scrape()))
        )
    }
}

/// The part of the server a request is for, as `/metrics` counts it.
enum MetricsRoute: String {
    case metrics, health, accounts, functions, events, rest, console, other

    init(path: Substring, request: Request) {
        if path == "/metrics" {
            self = .metrics
        } else if path == RESTService.healthPath {
            self = .health
        } else if path.hasPrefix("/identitytoolkit.googleapis.com/") || path.hasPrefix("/securetoken.googleapis.com/") {
            self = .accounts
        } else if path.hasSuffix(".json") {
            // Before the callable routes: most requests are REST, and no callable name has a dot.
            self = request.headers[.accept]?.contains("text/event-stream") == true ? .events : .rest
        } else if CallableRoute(target: String(path)) != nil {
            self = .functions
        } else if path == "/" || path == "/index.html" || path.hasPrefix("/console/") {
            self = .console
        } else {
            self = .other
        }
    }
}
