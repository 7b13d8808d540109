import HTTPTypes
import Hummingbird

/// Cross-origin headers: every response carries `Access-Control-Allow-Origin`; `OPTIONS`
/// answers a preflight.
struct CORS: Sendable {
    let allowedOrigin: String

    static let allowedMethods = "GET, PUT, POST, PATCH, DELETE, OPTIONS"
    static let allowedHeaders =
        "Authorization, Content-Type, X-HTTP-Method-Override, X-Firebase-ETag, If-Match, If-None-Match"

    /// Adds the origin and the response headers a page may read (`exposing`).
    func decorate(_ response: inout Response, exposing exposed: String = "ETag") {
        decorate(&response.headers, exposing: exposed)
    }

    func decorate(_ headers: inout HTTPFields, exposing exposed: String = "ETag") {
        headers[.accessControlAllowOrigin] = allowedOrigin
        headers[.accessControlExposeHeaders] = exposed
        if allowedOrigin != "*" { headers[.vary] = "Origin" }
    }

    func preflight(_ request: Request) -> Response {
        var headers: HTTPFields = [
            .accessControlAllowMethods: Self.allowedMethods,
            .accessControlAllowHeaders: request.headers[.accessControlRequestHeaders] ?? Self.allowedHeaders,
            .accessControlMaxAge: "86400",
            .contentLength: "0",
        ]
        headers[.allow] = Self.allowedMethods
        return Response(status: .ok, headers: headers)
    }
}
