import Foundation
import HTTPTypes
import HearthStorage
import Hummingbird

/// Storage's answers: Firebase's metadata JSON, and errors as
/// `{"error": {"code": N, "message": "..."}}`.
enum StorageAnswer {
    static func json(_ bytes: [UInt8], status: HTTPResponse.Status = .ok) -> Response {
        Response(
            status: status,
            headers: [.contentType: "application/json; charset=utf-8", .cacheControl: "no-cache"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes))
        )
    }

    static func error(_ status: Int, _ message: String) -> Response {
        var escaped = ""
        for scalar in message.unicodeScalars {
            switch scalar {
            case "\"": escaped += "\\\""
            case "\\": escaped += "\\\\"
            case _ where scalar.value < 0x20: escaped += String(format: "\\u%04x", scalar.value)
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return json(
            Array(#"{"error":{"code":\#(status),"message":"\#(escaped)"}}"#.utf8),
            status: HTTPResponse.Status(code: status)
        )
    }

    static func error(_ error: StorageError) -> Response {
        Self.error(error.code.httpStatus, error.message)
    }

    static let forbidden = error(
        403,
        "Permission denied: without storage rules only the admin reads or writes files "
            + "('Authorization: Bearer <admin secret>'), or a download token (?alt=media&token=)."
    )
}
