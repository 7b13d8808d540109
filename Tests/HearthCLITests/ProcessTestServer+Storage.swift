import AsyncHTTPClient
import Foundation
import NIOCore

/// Storage requests to a `hearth serve` child, with the admin credential as the SDKs send it
/// (`Authorization: Bearer`), and what storage keeps in its data directory.
extension ProcessTestServer {
    static let bucket = "hearth.appspot.com"

    struct StorageReply {
        var status: Int
        var retryAfter: String?
        var headers: [String: String]
        var body: String
    }

    /// One storage request as the admin; `path` may carry a query.
    func storage(
        _ method: String,
        _ path: String,
        headers: [(String, String)] = [],
        body: [UInt8] = []
    ) async throws -> StorageReply {
        var request = HTTPClientRequest(url: baseURL + path)
        request.method = .init(rawValue: method)
        request.headers.add(name: "Authorization", value: "Bearer \(adminSecret ?? "")")
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if !body.isEmpty || method == "POST" { request.body = .bytes(ByteBuffer(bytes: body)) }
        let response = try await client.execute(request, timeout: .seconds(60))
        let bytes = try await response.body.collect(upTo: 64 << 20)
        var fields: [String: String] = [:]
        for field in response.headers { fields[field.name.lowercased()] = field.value }
        return StorageReply(
            status: Int(response.status.code),
            retryAfter: response.headers.first(name: "Retry-After"),
            headers: fields,
            body: String(buffer: bytes)
        )
    }

    /// A media upload of `bytes` as `name` (already percent-encoded).
    func upload(_ name: String, _ bytes: [UInt8]) async throws -> StorageReply {
        try await storage(
            "POST",
            "/v0/b/\(Self.bucket)/o?name=\(name)",
            headers: [("Content-Type", "application/octet-stream")],
            body: bytes
        )
    }

    /// The names of the bucket's objects.
    func objectNames() async throws -> [String] {
        let listing = try await storage("GET", "/v0/b/\(Self.bucket)/o")
        let json = try JSONSerialization.jsonObject(with: Data(listing.body.utf8)) as? [String: Any]
        return (json?["items"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
    }

    /// The files in `storage/<folder>` of the data directory.
    func storageFiles(_ folder: String) -> [String] {
        let path = dataDirectory.appendingPathComponent("storage/\(folder)").path
        return ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted()
    }
}
