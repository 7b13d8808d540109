import HTTPTypes
import HearthCore
import HearthStore
import Hummingbird
import Logging
import NIOCore
import NIOHTTP1

/// The one place where errors become HTTP responses. Known errors answer Firebase's status and
/// message; anything else is a 500 with a generic message and a log line.
enum ErrorResponder {
    static func restError(for error: any Error, logger: Logger) -> RESTError {
        switch error {
        case let error as RESTError:
            return error
        case let error as CoreError:
            return .badRequest(error.message)
        case let error as StoreError:
            switch error.code {
            case .indexNotDefined, .invalidWrite, .invalidNamespace:
                return .badRequest(error.message)
            case .permissionDenied:
                return .permissionDenied
            default:
                logger.error("store failure", metadata: ["hearth.error": "\(error.message)"])
                return .serverFailure
            }
        case let error as HTTPParserError:
            // A body that breaks HTTP framing (a bad chunk size); the connection closes after this.
            return .badRequest("Malformed HTTP request: \(HTTPRefusal.reason(error)).")
        case is NIOTooManyBytesError:
            return RESTError(.contentTooLarge, "Request body too large.")
        case let error as HTTPError:
            switch error.status {
            case .contentTooLarge:
                return RESTError(.contentTooLarge, "Request body too large.")
            case .notFound:
                return .notFound
            case .methodNotAllowed:
                return RESTError(.methodNotAllowed, "Method not allowed")
            default:
                return RESTError(error.status, error.body ?? error.status.reasonPhrase)
            }
        default:
            logger.error("unmapped error", metadata: ["hearth.error": "\(String(reflecting: error))"])
            return .serverFailure
        }
    }

    static func response(for error: any Error, corsOrigin: String?, logger: Logger) -> Response {
        response(for: restError(for: error, logger: logger), corsOrigin: corsOrigin)
    }

    static func response(for error: RESTError, corsOrigin: String?) -> Response {
        var headers: HTTPFields = [
            .contentType: "application/json; charset=utf-8",
            .cacheControl: "no-cache",
        ]
        if let corsOrigin { headers[.accessControlAllowOrigin] = corsOrigin }
        if error.status == .serviceUnavailable { headers[.retryAfter] = "1" }
        return Response(
            status: error.status,
            headers: headers,
            body: ResponseBody(byteBuffer: ByteBuffer(string: JSONText.errorBody(error.message)))
        )
    }
}
