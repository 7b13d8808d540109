import HTTPTypes
import Hummingbird

/// Refuses a client address's requests over its rate (`RequestRateLimiter`) with 429 and
/// `Retry-After`, before anything else reads them; hands every other request on.
struct RequestRateRouter<Inner: HTTPResponder>: HTTPResponder where Inner.Context == PeerRequestContext {
    typealias Context = PeerRequestContext

    let inner: Inner
    let limiter: RequestRateLimiter?

    func respond(to request: Request, context: PeerRequestContext) async throws -> Response {
        if let limiter, !limiter.admit(context.clientAddress) {
            var response = ResponseBuilder.json(
                #"{"error":"Too many requests from your address: at most \#(Int(limiter.rate)) a second; retry shortly."}"#,
                status: .tooManyRequests
            )
            response.headers[.retryAfter] = "1"
            return response
        }
        return try await inner.respond(to: request, context: context)
    }
}
