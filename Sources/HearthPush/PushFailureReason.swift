/// Why an attempt at a push did not deliver it: a short stable string, usable as a metric label
/// (`hearth_push_failed_total{reason="http_503"}`) and in logs.
public struct PushFailureReason: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    public var rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    public var description: String { rawValue }

    /// An answer with this HTTP status that says nothing more: `http_503`.
    public static func http(_ status: Int) -> PushFailureReason {
        PushFailureReason(rawValue: "http_\(status)")
    }

    // Transport: no answer.
    /// The request did not finish in time (connect, TLS, answer or body).
    public static let timeout = PushFailureReason(rawValue: "timeout")
    /// No connection: refused, unreachable, a name that does not resolve.
    public static let connect = PushFailureReason(rawValue: "connect")
    /// The TLS handshake failed (an untrusted or mismatched certificate).
    public static let tls = PushFailureReason(rawValue: "tls")
    /// The connection broke before the answer was complete.
    public static let network = PushFailureReason(rawValue: "network")

    // FCM's answers (docs/push.md, "FCM errors").
    /// `UNREGISTERED` (404): the app instance is gone.
    public static let unregistered = PushFailureReason(rawValue: "unregistered")
    /// `NOT_FOUND` (404) without an FCM error code: the token is not known.
    public static let notFound = PushFailureReason(rawValue: "not_found")
    /// `INVALID_ARGUMENT` (400) naming the token: not a valid registration token.
    public static let invalidToken = PushFailureReason(rawValue: "invalid_token")
    /// `INVALID_ARGUMENT` (400) about the payload.
    public static let invalidArgument = PushFailureReason(rawValue: "invalid_argument")
    /// `SENDER_ID_MISMATCH` (403): the token belongs to another Firebase project.
    public static let senderIDMismatch = PushFailureReason(rawValue: "sender_id_mismatch")
    /// `THIRD_PARTY_AUTH_ERROR` (401): the project's APNs certificate or web push key was refused.
    public static let thirdPartyAuth = PushFailureReason(rawValue: "third_party_auth")
    /// `QUOTA_EXCEEDED` (429): too many messages, to the project or to this device.
    public static let quotaExceeded = PushFailureReason(rawValue: "quota_exceeded")
    /// `UNAVAILABLE` (503): FCM is overloaded.
    public static let unavailable = PushFailureReason(rawValue: "unavailable")
    /// `INTERNAL` (500): FCM failed.
    public static let `internal` = PushFailureReason(rawValue: "internal")
    /// `PERMISSION_DENIED` (403): the service account may not send for this project.
    public static let permissionDenied = PushFailureReason(rawValue: "permission_denied")
    /// The access token grant failed, or FCM refused a fresh access token.
    public static let auth = PushFailureReason(rawValue: "auth")
    /// Another documented FCM error that makes this push undeliverable (the status, lowercased).
    public static func fcm(_ status: String) -> PushFailureReason {
        PushFailureReason(rawValue: status.lowercased())
    }

    // The retry policy's.
    /// The push's retry window (24 h from its creation) ran out.
    public static let expired = PushFailureReason(rawValue: "expired")
}
