import HTTPTypes
import HearthCore
import HearthFunctions
import Hummingbird
import NIOCore

/// The bodies of callable responses, `{"result": ...}` and
/// `{"error": {"status": ..., "message": ..., "details"?: ...}}`, and the one mapping of a callable status to
/// its HTTP status (Firebase's, from google.rpc.Code: what the SDKs map back).
enum CallableResponse {
    static func result(_ value: JSONValue) -> Response {
        var bytes = Array(#"{"result":"#.utf8)
        JSONRenderer.render(value, into: &bytes)
        bytes.append(UInt8(ascii: "}"))
        return json(bytes, status: .ok)
    }

    static func error(_ error: CallableError) -> Response {
        let message = error.code == .internal ? "INTERNAL" : error.message
        var fields: [(String, JSONValue)] = [("status", .string(error.code.status)), ("message", .string(message))]
        if error.code != .internal, let details = error.details { fields.append(("details", details)) }
        var bytes: [UInt8] = []
        JSONRenderer.render(["error": .object(fields)], into: &bytes)
        var response = json(bytes, status: httpStatus(error.code))
        if let seconds = error.retryAfterSeconds {
            response.headers[.retryAfter] = String(max(1, seconds))
        } else if error.code == .unavailable {
            response.headers[.retryAfter] = "1"
        }
        return response
    }

    /// The HTTP status of a callable status, as Firebase sends it.
    static func httpStatus(_ code: CallableError.Code) -> HTTPResponse.Status {
        switch code {
        case .cancelled: return HTTPResponse.Status(code: 499)
        case .invalidArgument, .failedPrecondition, .outOfRange: return .badRequest
        case .deadlineExceeded: return .gatewayTimeout
        case .notFound: return .notFound
        case .alreadyExists, .aborted: return .conflict
        case .permissionDenied: return .forbidden
        case .unauthenticated: return .unauthorized
        case .resourceExhausted: return .tooManyRequests
        case .unimplemented: return .notImplemented
        case .unavailable: return .serviceUnavailable
        default: return .internalServerError
        }
    }

    private static func json(_ bytes: [UInt8], status: HTTPResponse.Status) -> Response {
        Response(
            status: status,
            headers: [.contentType: "application/json; charset=utf-8", .cacheControl: "no-cache"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes))
        )
    }
}
