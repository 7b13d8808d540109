/// The status `s` of a response, as the SDKs know them (`DatabaseError.fromStatus` on Android,
/// `errorForServerCode` in JavaScript).
public struct ResponseStatus: Hashable, Sendable, CustomStringConvertible {
    /// The wire spelling.
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// `ok`
    public static let ok = ResponseStatus(rawValue: "ok")
    /// `permission_denied`: rules refused the operation (data `"Permission denied"`).
    public static let permissionDenied = ResponseStatus(rawValue: "permission_denied")
    /// `datastale`: a transaction's hash did not match the current value.
    public static let dataStale = ResponseStatus(rawValue: "datastale")
    /// `invalid_token`: the credential could not be verified.
    public static let invalidToken = ResponseStatus(rawValue: "invalid_token")
    /// `expired_token`: the credential has expired.
    public static let expiredToken = ResponseStatus(rawValue: "expired_token")
    /// `failure`: the operation failed (invalid request, unknown action, server error); the SDKs
    /// report it as "The server indicated that this operation failed".
    public static let failure = ResponseStatus(rawValue: "failure")
    /// `too_big`: the data requested exceeds what one request may read.
    public static let tooBig = ResponseStatus(rawValue: "too_big")
    /// `unavailable`: the service is unavailable (shutting down, overloaded).
    public static let unavailable = ResponseStatus(rawValue: "unavailable")

    public var description: String { rawValue }
}
