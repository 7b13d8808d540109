import HTTPTypes
import Hummingbird

/// Builds REST responses: JSON bodies (compact, pretty, or none for `print=silent`), ETags.
enum ResponseBuilder {
    static let firebaseETag = HTTPField.Name("X-Firebase-ETag")!
    static let methodOverride = HTTPField.Name("X-HTTP-Method-Override")!

    static func json(
        _ compact: [UInt8],
        status: HTTPResponse.Status = .ok,
        print: RESTOptions.PrintMode = .compact,
        etag: String? = nil
    ) -> Response {
        var headers: HTTPFields = [.cacheControl: "no-cache"]
        if let etag { headers[.eTag] = etag }
        if print == .silent {
            return Response(status: .noContent, headers: headers)
        }
        headers[.contentType] = "application/json; charset=utf-8"
        let bytes = print == .pretty ? CoreBridge.pretty(compact) : compact
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    static func json(
        _ text: String,
        status: HTTPResponse.Status = .ok,
        print: RESTOptions.PrintMode = .compact
    )
        -> Response
    {
        json(Array(text.utf8), status: status, print: print)
    }

    /// `304 Not Modified` for a matching `if-none-match`.
    static func notModified(etag: String) -> Response {
        Response(status: .notModified, headers: [.eTag: etag, .cacheControl: "no-cache"])
    }

    /// `412 Precondition Failed`: the location's current value and its ETag.
    static func preconditionFailed(current: [UInt8], etag: String) -> Response {
        json(current, status: .preconditionFailed, etag: etag)
    }

    /// An ETag as sent by a client, without surrounding quotes.
    static func normalizedETag(_ value: String) -> String {
        var v = Substring(value.trimmingCharactersInSpaces())
        if v.hasPrefix("W/") { v = v.dropFirst(2) }
        if v.count >= 2, v.first == "\"", v.last == "\"" { v = v.dropFirst().dropLast() }
        return String(v)
    }
}

extension String {
    func trimmingCharactersInSpaces() -> String {
        String(self.drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}
