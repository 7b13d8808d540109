import NIOCore
import NIOHTTP1

/// An answer the connection gives by itself, before any request reaches the REST service: a
/// request it cannot parse, one too large to parse, a head that never completes, or a
/// connection over the cap. Always `Connection: close`, with a Firebase-shaped error body.
struct HTTPRefusal: Equatable, Sendable {
    let status: HTTPResponseStatus
    let message: String

    /// 400 for a request the parser refuses; 431 when the head is over `maxHeaderBytes`.
    static func malformed(_ error: HTTPParserError, maxHeaderBytes: Int) -> HTTPRefusal {
        if error == .headerOverflow {
            return HTTPRefusal(
                status: .requestHeaderFieldsTooLarge,
                message: "Request header fields too large: a request head may be at most \(maxHeaderBytes) bytes."
            )
        }
        return HTTPRefusal(status: .badRequest, message: "Malformed HTTP request: \(reason(error)).")
    }

    static func targetTooLong(_ maxRequestLineBytes: Int) -> HTTPRefusal {
        HTTPRefusal(
            status: .uriTooLong,
            message: "Request target too long: the request line may be at most \(maxRequestLineBytes) bytes."
        )
    }

    static func headerTimeout(_ timeout: Duration) -> HTTPRefusal {
        HTTPRefusal(
            status: .requestTimeout,
            message: "Request head not received within \(timeout.components.seconds) seconds."
        )
    }

    static let tooManyConnections = HTTPRefusal(
        status: .serviceUnavailable,
        message: "Too many connections: the server is at its connection limit; retry shortly."
    )

    static let tooManyConnectionsFromAddress = HTTPRefusal(
        status: .tooManyRequests,
        message: "Too many connections from your address: close some before opening more."
    )

    /// What is wrong, in words, for the parser errors a client can cause.
    static func reason(_ error: HTTPParserError) -> String {
        switch error {
        case .invalidMethod: return "unknown method (is this TLS on a plain HTTP port?)"
        case .invalidURL: return "invalid request target"
        case .invalidVersion, .invalidConstant: return "not an HTTP/1.x request line"
        case .invalidHeaderToken: return "invalid header field (each needs a name, a colon and a value)"
        case .unexpectedContentLength: return "both Content-Length and Transfer-Encoding, or Content-Length twice"
        case .unknown: return "invalid Transfer-Encoding or framing"
        case .invalidContentLength: return "invalid Content-Length"
        case .invalidChunkSize: return "invalid chunk size in a chunked body"
        case .lfExpected, .strictModeAssertion: return "invalid line ending"
        default: return "\(error)"
        }
    }

    /// The whole response: status line, headers and body.
    func head() -> HTTPResponseHead {
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "application/json; charset=utf-8")
        headers.add(name: "Content-Length", value: "\(body.utf8.count)")
        headers.add(name: "Connection", value: "close")
        if status == .serviceUnavailable { headers.add(name: "Retry-After", value: "1") }
        return HTTPResponseHead(version: .http1_1, status: status, headers: headers)
    }

    var body: String { JSONText.errorBody(message) }

    /// The response as bytes, for a connection without an HTTP encoder.
    func encoded(allocator: ByteBufferAllocator) -> ByteBuffer {
        let head = head()
        var text = "HTTP/1.1 \(status.code) \(status.reasonPhrase)\r\n"
        for (name, value) in head.headers { text += "\(name): \(value)\r\n" }
        text += "\r\n" + body
        return allocator.buffer(string: text)
    }
}
