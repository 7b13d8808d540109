import Foundation

extension TestServer {
    /// The default bucket of a test server.
    public static let bucket = "hearth.appspot.com"
    /// The admin credential as a storage request's header.
    public static let adminBearer = [("Authorization", "Bearer \(adminSecret)")]

    /// Uploads `text` as the object `name` of `bucket`, as the admin (Firebase's upload
    /// endpoint); returns its download URL (with its token).
    public func upload(
        _ name: String,
        bucket: String = bucket,
        contentType: String = "text/plain",
        text: String = "x"
    ) async throws -> String {
        let encoded = name.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        let reply = try await send(
            "POST",
            "/v0/b/\(bucket)/o?name=\(encoded)",
            headers: Self.adminBearer + [("Content-Type", contentType)],
            text: text
        )
        guard reply.status == 200,
            let object = try JSONSerialization.jsonObject(with: Data(reply.body.utf8)) as? [String: Any],
            let token = object["downloadTokens"] as? String
        else { throw TestFailure("upload of \(name): \(reply.status) \(reply.body)") }
        return "http://127.0.0.1:\(port)/v0/b/\(bucket)/o/\(encoded)?alt=media&token=\(token)"
    }

    /// Whether the object `name` of `bucket` exists (its metadata, as the admin reads it).
    public func objectExists(_ name: String, bucket: String = bucket) async throws -> Bool {
        let encoded = name.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        return try await send("GET", "/v0/b/\(bucket)/o/\(encoded)", headers: Self.adminBearer).status == 200
    }

    /// The file deletions queued and not yet carried out (`hearth_file_deletions_pending`).
    public func pendingFileDeletions() async throws -> Double? {
        let reply = try await send("GET", "/metrics", headers: Self.adminBearer)
        return PrometheusText.sample("hearth_file_deletions_pending", in: reply.body)
    }
}
