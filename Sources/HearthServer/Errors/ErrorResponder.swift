import HTTPTypes
import HearthCore
import Hummingbird
import Logging
import NIOCore

/// Where errors become HTTP responses: `ErrorAnswer` gives Firebase's status and message; an
/// error of the server's own is a 500 with a generic message and a log line.
enum ErrorResponder {
    static func restError(for error: any Error, logger: Logger) -> RESTError {
        let answer = ErrorAnswer.to(error)
        if answer.isInternal {
            if let error = error as? StoreError {
                logger.error("store failure", metadata: ["hearth.error": "\(error.message)"])
            } else {
                logger.error("unmapped error", metadata: ["hearth.error": "\(String(reflecting: error))"])
            }
        }
        return answer.restError
    }

    static func response(for error: any Error, corsOrigin: String?, logger: Logger) -> Response {
        response(for: restError(for: error, logger: logger), corsOrigin: corsOrigin)
    }

    static func response(for error: RESTError, corsOrigin: String?) -> Response {
        let answer = parts(for: error, corsOrigin: corsOrigin)
        return Response(
            status: answer.status,
            headers: answer.headers,
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: answer.body))
        )
    }

    /// `error`'s answer as its parts, for a channel handler that writes it itself
    /// (`DirectRESTWriteHandler`).
    static func parts(
        for error: RESTError,
        corsOrigin: String? = nil
    ) -> (status: HTTPResponse.Status, headers: HTTPFields, body: [UInt8]) {
        var headers: HTTPFields = [
            .contentType: "application/json; charset=utf-8",
            .cacheControl: "no-cache",
        ]
        if let corsOrigin { headers[.accessControlAllowOrigin] = corsOrigin }
        if error.status == .serviceUnavailable { headers[.retryAfter] = "1" }
        return (error.status, headers, Array(JSONText.errorBody(error.message).utf8))
    }
}
