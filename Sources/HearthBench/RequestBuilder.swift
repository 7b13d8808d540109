import NIOCore

/// Where the server is and how every request names the namespace and the admin credential.
struct ServerTarget: Sendable {
    var host: String
    var port: Int
    var namespace: String
    var adminSecret: String?

    /// Parses `http://host:port` (no TLS: the benchmark speaks plain HTTP/1.1 over loopback).
    init(url: String, namespace: String, adminSecret: String?) throws {
        guard url.hasPrefix("http://") else { throw BenchError("--url '\(url)' must start with http://") }
        var rest = url.dropFirst("http://".count)
        if let slash = rest.firstIndex(of: "/") { rest = rest[..<slash] }
        if let colon = rest.lastIndex(of: ":") {
            guard let port = Int(rest[rest.index(after: colon)...]), (1...65535).contains(port) else {
                throw BenchError("--url '\(url)' has a bad port")
            }
            self.host = String(rest[..<colon])
            self.port = port
        } else {
            self.host = String(rest)
            self.port = 80
        }
        guard !host.isEmpty else { throw BenchError("--url '\(url)' has no host") }
        self.namespace = namespace
        self.adminSecret = adminSecret
    }

    var hostHeader: String { "\(host):\(port)" }

    /// `ns=…&auth=…`, percent-encoded, for every request's query string.
    var baseQuery: String {
        var items = ["ns=" + percentEncode(namespace)]
        if let adminSecret { items.append("auth=" + percentEncode(adminSecret)) }
        return items.joined(separator: "&")
    }
}

/// A request, encoded to bytes once: request line, `Host`, `Content-Length`, body.
struct RequestBuilder: Sendable {
    var method: String
    /// A database path such as `/bench/big`; `.json` is appended.
    var path: String
    /// Extra query items, already encoded (`orderBy=%22score%22`).
    var query: [String] = []
    var body: [UInt8] = []
    var target: ServerTarget

    init(_ method: String, _ path: String, query: [String] = [], body: [UInt8] = [], target: ServerTarget) {
        self.method = method
        self.path = path
        self.query = query
        self.body = body
        self.target = target
    }

    func encode(allocator: ByteBufferAllocator) -> ByteBuffer {
        let queryString = ([target.baseQuery] + query).joined(separator: "&")
        var head = "\(method) \(path == "/" ? "/" : path).json?\(queryString) HTTP/1.1\r\n"
        head += "Host: \(target.hostHeader)\r\n"
        if method != "GET" && method != "DELETE" || !body.isEmpty {
            head += "Content-Type: application/json\r\nContent-Length: \(body.count)\r\n"
        }
        head += "\r\n"
        var buffer = allocator.buffer(capacity: head.utf8.count + body.count)
        buffer.writeString(head)
        buffer.writeBytes(body)
        return buffer
    }
}

/// Encodes `PUT /bench/puts/<phase>/c<client>/<i>.json` requests from pre-encoded pieces.
struct SmallPutEncoder: Sendable {
    private let prefix: [UInt8]
    private let middle: [UInt8]

    init(target: ServerTarget, basePath: String, silent: Bool) {
        prefix = Array("PUT \(basePath)/".utf8)
        let query = target.baseQuery + (silent ? "&print=silent" : "")
        middle = Array(
            (".json?\(query) HTTP/1.1\r\nHost: \(target.hostHeader)\r\n"
                + "Content-Type: application/json\r\nContent-Length: ").utf8
        )
    }

    func encode(_ i: Int, allocator: ByteBufferAllocator) -> ByteBuffer {
        let number = String(i)
        let body = "{\"n\":\(number),\"t\":\"hello\"}"
        var buffer = allocator.buffer(capacity: prefix.count + middle.count + 2 * number.utf8.count + 48)
        buffer.writeBytes(prefix)
        buffer.writeString(number)
        buffer.writeBytes(middle)
        buffer.writeString(String(body.utf8.count))
        buffer.writeStaticString("\r\n\r\n")
        buffer.writeString(body)
        return buffer
    }
}

/// Percent-encodes everything but RFC 3986 unreserved characters.
func percentEncode(_ s: String) -> String {
    var out = ""
    for byte in s.utf8 {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
            UInt8(ascii: "~"):
            out.unicodeScalars.append(Unicode.Scalar(byte))
        default:
            let hex = Array("0123456789ABCDEF".utf8)
            out += "%"
            out.unicodeScalars.append(Unicode.Scalar(hex[Int(byte >> 4)]))
            out.unicodeScalars.append(Unicode.Scalar(hex[Int(byte & 15)]))
        }
    }
    return out
}

struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

extension HTTPResponse {
    /// Throws unless the status is 2xx, quoting the server's answer.
    func expectSuccess(_ what: String) throws {
        guard isSuccess else {
            throw BenchError("\(what) answered \(status): \(bodyText.prefix(300))")
        }
    }
}
