import HTTPTypes
import HearthCore
import Hummingbird

/// Builds REST responses: JSON bodies (compact, pretty, or none for `print=silent`), ETags.
enum ResponseBuilder {
    static let firebaseETag = HTTPField.Name("X-Firebase-ETag")!
    static let methodOverride = HTTPField.Name("X-HTTP-Method-Override")!
    static let contentTypeOptions = HTTPField.Name("X-Content-Type-Options")!

    static func json(
        _ compact: [UInt8],
        status: HTTPResponse.Status = .ok,
        print: RESTOptions.PrintMode = .compact,
        etag: String? = nil,
        callback: String? = nil
    ) -> Response {
        var parts = jsonParts(compact, status: status, print: print, etag: etag)
        guard let body = parts.body else { return Response(status: parts.status, headers: parts.headers) }
        guard let callback else {
            return Response(
                status: parts.status,
                headers: parts.headers,
                body: ResponseBody(byteBuffer: ByteBuffer(bytes: body))
            )
        }
        // JSONP (`callback=`): the script `NAME(JSON);`, never sniffed as anything else.
        parts.headers[.contentType] = "application/javascript; charset=utf-8"
        parts.headers[contentTypeOptions] = "nosniff"
        var script = ByteBuffer()
        script.reserveCapacity(callback.utf8.count + body.count + 3)
        script.writeString(callback)
        script.writeString("(")
        script.writeBytes(body)
        script.writeString(");")
        return Response(status: parts.status, headers: parts.headers, body: ResponseBody(byteBuffer: script))
    }

    /// What `json(_:status:print:etag:)` answers without a callback, as parts: the status, the
    /// headers and the body (none for `print=silent`); also for a handler that writes them
    /// itself (`DirectRESTWriteHandler`).
    static func jsonParts(
        _ compact: [UInt8],
        status: HTTPResponse.Status = .ok,
        print: RESTOptions.PrintMode = .compact,
        etag: String? = nil
    ) -> (status: HTTPResponse.Status, headers: HTTPFields, body: [UInt8]?) {
        var headers: HTTPFields = [.cacheControl: "no-cache"]
        if let etag { headers[.eTag] = etag }
        if print == .silent { return (.noContent, headers, nil) }
        headers[.contentType] = "application/json; charset=utf-8"
        return (status, headers, print == .pretty ? CoreBridge.pretty(compact) : compact)
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

    /// A download's file name when `download=` is empty: the location's last key (`data` at
    /// the root), with `.json`.
    static func downloadName(for path: DataPath) -> String {
        (path.keys.last?.string ?? "data") + ".json"
    }

    /// `Content-Disposition` of a download named `name`: characters a quoted file name cannot
    /// hold (quotes, backslashes, slashes, control characters) become `_`, non-ASCII names are
    /// also given in RFC 5987 form, and the name is cut to 200 bytes.
    static func attachment(named name: String) -> String {
        var ascii = ""
        var encoded = ""
        var bytes = 0
        for scalar in name.unicodeScalars {
            let utf8 = Array(String(scalar).utf8)
            guard bytes + utf8.count <= 200 else { break }
            bytes += utf8.count
            let unsafe = scalar.value < 0x20 || scalar.value == 0x7F || "\"\\/".unicodeScalars.contains(scalar)
            ascii.append(unsafe || !scalar.isASCII ? "_" : Character(scalar))
            for byte in utf8 {
                let plain =
                    (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                    || "-._~".utf8.contains(byte)
                if plain && !unsafe {
                    encoded.append(Character(Unicode.Scalar(byte)))
                } else {
                    encoded += "%" + (byte < 16 ? "0" : "") + String(byte, radix: 16, uppercase: true)
                }
            }
        }
        if ascii.isEmpty { ascii = "data.json" }
        guard name.unicodeScalars.contains(where: { !$0.isASCII }) else { return "attachment; filename=\"\(ascii)\"" }
        return "attachment; filename=\"\(ascii)\"; filename*=UTF-8''\(encoded)"
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
