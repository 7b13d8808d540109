import HTTPTypes

/// A refusal of a REST request: the HTTP status and the `{"error" : ...}` message.
struct RESTError: Error, Sendable, CustomStringConvertible {
    let status: HTTPResponse.Status
    let message: String

    init(_ status: HTTPResponse.Status, _ message: String) {
        self.status = status
        self.message = message
    }

    var description: String { "\(status.code) \(message)" }

    static func badRequest(_ message: String) -> RESTError { RESTError(.badRequest, message) }
    static func unauthorized(_ message: String) -> RESTError { RESTError(.unauthorized, message) }

    /// Firebase's answer to a rules denial (and, until rules land, to every non-admin request).
    static let permissionDenied = RESTError(.unauthorized, "Permission denied")
    /// Firebase's answer to an ID token that cannot be verified.
    static let unparsableToken = RESTError(.unauthorized, "Could not parse auth token.")
    /// Firebase's answer to an expired ID token.
    static let expiredToken = RESTError(.unauthorized, "Auth token is expired.")
    static let notFound = RESTError(.notFound, "Not Found")
    static let serverFailure = RESTError(.internalServerError, "Internal server error")
}
