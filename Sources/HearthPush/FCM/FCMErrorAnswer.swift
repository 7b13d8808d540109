import Foundation

/// An error answer of FCM HTTP v1 (Google's `google.rpc.Status` in `{"error": ...}`), and what it
/// means for the push, as Google's "FCM error codes" and token-management guides say:
///
/// | answer | outcome |
/// | --- | --- |
/// | 404 `UNREGISTERED`, or `NOT_FOUND` | `.unregistered`: the app instance is gone |
/// | 403 `SENDER_ID_MISMATCH` | `.unregistered`: the token belongs to another project |
/// | 400 `INVALID_ARGUMENT` about `message.token` or "registration token" | `.unregistered` (`invalid_token`) |
/// | 400 `INVALID_ARGUMENT` about anything else | `.rejected`: this payload is refused |
/// | 401 `THIRD_PARTY_AUTH_ERROR` | `.rejected`: the project's APNs or web push credentials were refused |
/// | 429 `QUOTA_EXCEEDED` | `.retry` after `Retry-After`, else at least a minute |
/// | 503 `UNAVAILABLE`, 500 `INTERNAL` | `.retry` after `Retry-After` when given |
/// | 403 `PERMISSION_DENIED` | `.retry`: the service account lacks the role; fixable without losing pushes |
/// | 401 otherwise | the access token is dropped and the send tried once more (`FCMProvider`) |
///
/// An answer that is not Google's error JSON (a proxy's page, a wrong endpoint) is retried: only
/// a documented answer removes a device or drops a push.
struct FCMErrorAnswer: Sendable, Equatable {
    /// The HTTP status.
    var httpStatus: Int
    /// `error.status`: `NOT_FOUND`, `INVALID_ARGUMENT`, ...
    var status: String
    /// `error.details[]`'s `FcmError.errorCode`: `UNREGISTERED`, `SENDER_ID_MISMATCH`, ...
    var fcmErrorCode: String?
    /// `error.message`.
    var message: String
    /// The fields a `BadRequest` detail names (`message.token`, `message.data[0].value`).
    var fieldViolations: [String]

    static let fcmErrorType = "type.googleapis.com/google.firebase.fcm.v1.FcmError"
    static let badRequestType = "type.googleapis.com/google.rpc.BadRequest"

    /// The error in `body`, or nil when it is not Google's error JSON.
    init?(httpStatus: Int, body: [UInt8]) {
        guard let object = (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any],
            let error = object["error"] as? [String: Any], let status = error["status"] as? String
        else { return nil }
        self.httpStatus = httpStatus
        self.status = status
        self.message = error["message"] as? String ?? ""
        var code: String?
        var violations: [String] = []
        for detail in error["details"] as? [[String: Any]] ?? [] {
            switch detail["@type"] as? String {
            case Self.fcmErrorType: code = detail["errorCode"] as? String ?? code
            case Self.badRequestType:
                for violation in detail["fieldViolations"] as? [[String: Any]] ?? [] {
                    if let field = violation["field"] as? String { violations.append(field) }
                }
            default: break
            }
        }
        self.fcmErrorCode = code
        self.fieldViolations = violations
    }

    /// Whether an `INVALID_ARGUMENT` is about the registration token rather than the payload.
    var namesInvalidToken: Bool {
        fieldViolations.contains("message.token") || message.lowercased().contains("registration token")
    }

    /// What the answer means for the push; `retryAfter` is the answer's `Retry-After`.
    func outcome(retryAfter: Duration?) -> PushOutcome {
        switch fcmErrorCode ?? status {
        case "UNREGISTERED": .unregistered(.unregistered)
        case "NOT_FOUND": .unregistered(.notFound)
        case "SENDER_ID_MISMATCH": .unregistered(.senderIDMismatch)
        case "INVALID_ARGUMENT": namesInvalidToken ? .unregistered(.invalidToken) : .rejected(.invalidArgument)
        case "THIRD_PARTY_AUTH_ERROR", "APNS_AUTH_ERROR": .rejected(.thirdPartyAuth)
        // Google: "retry with exponential backoff, minimum initial delay of 1 minute".
        case "QUOTA_EXCEEDED", "RESOURCE_EXHAUSTED": .retry(.quotaExceeded, after: retryAfter ?? .seconds(60))
        case "UNAVAILABLE": .retry(.unavailable, after: retryAfter)
        case "INTERNAL": .retry(.internal, after: retryAfter)
        case "PERMISSION_DENIED": .retry(.permissionDenied, after: retryAfter)
        case "UNAUTHENTICATED": .retry(.auth, after: retryAfter)
        case let other:
            // Undocumented for a send: a server-side status is retried, a client-side one is final.
            httpStatus >= 500 || httpStatus == 429 || httpStatus == 408
                ? .retry(.fcm(other), after: retryAfter) : .rejected(.fcm(other))
        }
    }
}
