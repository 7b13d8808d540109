import HTTPTypes
import HearthProtocol

/// A refusal of a REST request: the HTTP status and the `{"error" : ...}` message (and, should
/// it reach a realtime client, its wire status). `ErrorAnswer` maps every other error.
struct RESTError: Error, Sendable, CustomStringConvertible {
    let status: HTTPResponse.Status
    let message: String
    let wireStatus: ResponseStatus

    init(_ status: HTTPResponse.Status, _ message: String, wireStatus: ResponseStatus = .failure) {
        self.status = status
        self.message = message
        self.wireStatus = wireStatus
    }

    var description: String { "\(status.code) \(message)" }

    static func badRequest(_ message: String) -> RESTError { RESTError(.badRequest, message) }

    /// Firebase's answer to a rules denial.
    static let permissionDenied = RESTError(.unauthorized, "Permission denied", wireStatus: .permissionDenied)
    static let notFound = RESTError(.notFound, "Not Found")
}
