import AsyncHTTPClient
import Foundation
import NIOCore

extension ProcessTestServer {
    struct ByteResponse {
        var status: Int
        var headers: [(name: String, value: String)]
        var body: [UInt8]

        var text: String { String(decoding: body, as: UTF8.self) }

        func header(_ name: String) -> String? {
            headers.first { $0.name.lowercased() == name.lowercased() }?.value
        }

        /// The body as a JSON object.
        func object() throws -> [String: Any] {
            guard let object = try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any] else {
                throw TestFailure("not a JSON object: \(text)")
            }
            return object
        }
    }

    /// One request with a byte body and headers of the caller's; `admin` adds
    /// `Authorization: Bearer <admin secret>` (what the storage APIs take).
    func requestBytes(
        _ method: String,
        _ path: String,
        body: [UInt8]? = nil,
        headers: [(String, String)] = [],
        admin: Bool = false
    ) async throws -> ByteResponse {
        var request = HTTPClientRequest(url: baseURL + path)
        request.method = .init(rawValue: method)
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if admin, let adminSecret { request.headers.add(name: "Authorization", value: "Bearer \(adminSecret)") }
        if let body { request.body = .bytes(ByteBuffer(bytes: body)) }
        let response = try await client.execute(request, timeout: .seconds(60))
        let bytes = try await response.body.collect(upTo: 256 << 20)
        return ByteResponse(
            status: Int(response.status.code),
            headers: response.headers.map { ($0.name, $0.value) },
            body: Array(bytes.readableBytesView)
        )
    }
}
