import HTTPTypes
import HearthStorage
import Hummingbird

/// Storage's answers: Firebase's metadata JSON (`ResponseBuilder.json`), and errors as
/// `{"error": {"code": N, "message": "..."}}`.
enum StorageAnswer {
    static func json(_ bytes: [UInt8], status: HTTPResponse.Status = .ok) -> Response {
        ResponseBuilder.json(bytes, status: status)
    }

    static func error(_ status: Int, _ message: String) -> Response {
        json(
            Array(#"{"error":{"code":\#(status),"message":\#(JSONText.quoted(message))}}"#.utf8),
            status: HTTPResponse.Status(code: status)
        )
    }

    /// A 503 (a disk fault, a closed store) says when to try again, as the database's do.
    static func error(_ error: StorageError) -> Response {
        var response = Self.error(error.code.httpStatus, error.message)
        if error.code.httpStatus == 503 { response.headers[.retryAfter] = "1" }
        return response
    }
}
