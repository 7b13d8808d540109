import HTTPTypes
import HearthPush
import Hummingbird

/// `GET /metrics`: the Prometheus text format of `ServerMetrics`, for the admin credential only.
struct MetricsEndpoint: Sendable {
    static let path = "/metrics"

    let metrics: ServerMetrics
    let credentials: CredentialResolver
    /// The push queues, when push notifications are on.
    var push: (any PushQueueStatus)? = nil

    func respond(to request: Request, query: Substring?) async -> Response {
        guard credentials.isAdmin(request, query: query) else {
            return ResponseBuilder.json(
                #"{"error":"GET /metrics needs the admin credential: 'Authorization: Bearer <admin secret>'."}"#,
                status: .unauthorized
            )
        }
        if let push { metrics.record(push: await push.figures()) }
        let headers: HTTPFields = [.contentType: "text/plain; version=0.0.4; charset=utf-8", .cacheControl: "no-cache"]
        return Response(
            status: .ok,
            headers: headers,
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: metrics.scrape()))
        )
    }
}
