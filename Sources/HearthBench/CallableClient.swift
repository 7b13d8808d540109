import Foundation
import NIOCore

/// `POST <path>?<query>` with a JSON body and, when `bearer` is given, `Authorization: Bearer`.
func jsonPOST(
    _ path: String,
    query: String,
    body: [UInt8],
    bearer: String? = nil,
    target: ServerTarget,
    allocator: ByteBufferAllocator
) -> ByteBuffer {
    var head = "POST \(path)?\(query) HTTP/1.1\r\nHost: \(target.hostHeader)\r\n"
    if let bearer { head += "Authorization: Bearer \(bearer)\r\n" }
    head += "Content-Type: application/json\r\nContent-Length: \(body.count)\r\n\r\n"
    var buffer = allocator.buffer(capacity: head.utf8.count + body.count)
    buffer.writeString(head)
    buffer.writeBytes(body)
    return buffer
}

/// Calls the server's callables (`POST /functions/<name>?ns=…`, `{"data": …}`) as one signed-in
/// user over one keep-alive connection, timing each call from the request's write to the whole
/// response.
struct CallableClient {
    let connection: HTTPConnection
    let target: ServerTarget
    let idToken: String

    /// One call; `data` is the JSON of the `data` field. Answers the `result` object and the
    /// client-observed nanoseconds; throws on an error answer or a response too big to keep.
    func call(_ name: String, data: String) async throws -> (result: [String: Any], nanos: UInt64) {
        let request = jsonPOST(
            "/functions/\(name)",
            query: "ns=" + percentEncode(target.namespace),
            body: Array(#"{"data":\#(data)}"#.utf8),
            bearer: idToken,
            target: target,
            allocator: connection.allocator
        )
        let start = monotonicNanos()
        let response = try await connection.send(request).get()
        let nanos = monotonicNanos() - start
        try response.expectSuccess(name)
        guard response.bodyLength == response.bodyPrefix.readableBytes else {
            throw BenchError("\(name) answered \(response.bodyLength) bytes, more than the benchmark keeps")
        }
        guard let object = try? JSONSerialization.jsonObject(with: Data(response.bodyText.utf8)) as? [String: Any],
            let result = object["result"] as? [String: Any]
        else {
            throw BenchError("\(name) answered no result object: \(response.bodyText.prefix(300))")
        }
        return (result, nanos)
    }
}
