/// An answer the fake FCM gives to a `messages:send` on demand, with Google's status and body.
public enum FakeFCMAnswer: Sendable, Hashable {
    /// 404 `NOT_FOUND` with FCM's `UNREGISTERED`: the app instance is gone.
    case unregistered
    /// 404 `NOT_FOUND` without details.
    case notFound
    /// 400 `INVALID_ARGUMENT`: "The registration token is not a valid FCM registration token".
    case invalidToken
    /// 400 `INVALID_ARGUMENT` with a `BadRequest` naming `field` (a payload FCM refuses).
    case invalidPayload(field: String)
    /// 403 `PERMISSION_DENIED` with FCM's `SENDER_ID_MISMATCH`.
    case senderIDMismatch
    /// 401 `UNAUTHENTICATED` with FCM's `THIRD_PARTY_AUTH_ERROR` (APNs or web push credentials).
    case thirdPartyAuthError
    /// 401 `UNAUTHENTICATED` without details: the access token was refused.
    case expiredAccessToken
    /// 403 `PERMISSION_DENIED`: the service account may not send.
    case permissionDenied
    /// 429 `RESOURCE_EXHAUSTED` with FCM's `QUOTA_EXCEEDED`, `Retry-After` when given.
    case quotaExceeded(retryAfter: Int?)
    /// 503 `UNAVAILABLE` with FCM's `UNAVAILABLE`, `Retry-After` when given.
    case unavailable(retryAfter: Int?)
    /// 500 `INTERNAL` with FCM's `INTERNAL`.
    case internalError
    /// `status` with an HTML page, not Google's JSON (a proxy in the way).
    case html(status: Int)
    /// Accepts after waiting `seconds` (a send slower than the client's deadline).
    case slow(seconds: Int)

    /// The HTTP answer.
    var response: FakeHTTPResponse {
        switch self {
        case .unregistered:
            Self.error(404, "NOT_FOUND", "Requested entity was not found.", fcm: "UNREGISTERED")
        case .notFound:
            Self.error(404, "NOT_FOUND", "Requested entity was not found.", fcm: nil)
        case .invalidToken:
            Self.error(
                400,
                "INVALID_ARGUMENT",
                "The registration token is not a valid FCM registration token",
                fcm: "INVALID_ARGUMENT"
            )
        case .invalidPayload(let field):
            FakeFCM.badRequest([(field, "Invalid value at '\(field)'")])
        case .senderIDMismatch:
            Self.error(403, "PERMISSION_DENIED", "SenderId mismatch", fcm: "SENDER_ID_MISMATCH")
        case .thirdPartyAuthError:
            Self.error(
                401,
                "UNAUTHENTICATED",
                "Auth error from APNS or Web Push Service",
                fcm: "THIRD_PARTY_AUTH_ERROR"
            )
        case .expiredAccessToken:
            FakeFCM.unauthenticated
        case .permissionDenied:
            Self.error(403, "PERMISSION_DENIED", "Permission 'cloudmessaging.messages.create' denied", fcm: nil)
        case .quotaExceeded(let retryAfter):
            Self.error(429, "RESOURCE_EXHAUSTED", "Quota exceeded.", fcm: "QUOTA_EXCEEDED", retryAfter: retryAfter)
        case .unavailable(let retryAfter):
            Self.error(
                503,
                "UNAVAILABLE",
                "The service is currently unavailable.",
                fcm: "UNAVAILABLE",
                retryAfter: retryAfter
            )
        case .internalError:
            Self.error(500, "INTERNAL", "Internal error encountered.", fcm: "INTERNAL")
        case .html(let status):
            FakeHTTPResponse(
                status: status,
                headers: [("Content-Type", "text/html")],
                body: Array("<html><body>Error \(status)</body></html>".utf8)
            )
        case .slow(let seconds):
            FakeHTTPResponse(status: 200, body: Array("{}".utf8), delay: .seconds(seconds))
        }
    }

    /// Google's error JSON: `{"error": {code, message, status, details: [FcmError]}}`.
    static func error(
        _ code: Int,
        _ status: String,
        _ message: String,
        fcm: String?,
        retryAfter: Int? = nil
    )
        -> FakeHTTPResponse
    {
        let details =
            fcm.map {
                #","details":[{"@type":"type.googleapis.com/google.firebase.fcm.v1.FcmError","errorCode":"\#($0)"}]"#
            } ?? ""
        return .json(
            code,
            #"{"error":{"code":\#(code),"message":"\#(message)","status":"\#(status)"\#(details)}}"#,
            headers: retryAfter.map { [("Retry-After", "\($0)")] } ?? []
        )
    }
}
