/// A request of Cloud Storage's JSON API, as firebase-admin and google-cloud-storage send it
/// (`STORAGE_EMULATOR_HOST`): `/storage/v1/b/{bucket}/o[/{name}]` (list, metadata, patch,
/// delete), `/upload/storage/v1/b/{bucket}/o?uploadType=media|multipart&name=` and
/// `/download/storage/v1/b/{bucket}/o/{name}?alt=media`; and the buckets, `/storage/v1/b` and
/// `/storage/v1/b/{bucket}` (`bucket` empty for the list).
struct GCSRoute: Equatable {
    enum Kind: Equatable { case json, upload, download, bucket }

    let kind: Kind
    let bucket: String
    let name: String?
    let query: Substring?
    /// Why the target is refused (400), as `StorageRoute.refusal`.
    let refusal: String?

    static let prefixes: [(String, Kind)] = [
        ("/storage/v1/b/", .json), ("/upload/storage/v1/b/", .upload), ("/download/storage/v1/b/", .download),
    ]

    init?(target: String) {
        if let (bucket, query) = Self.bucketTarget(target) {
            (kind, self.bucket, name, self.query, refusal) = (.bucket, bucket, nil, query, nil)
            return
        }
        guard let (prefix, kind) = Self.prefixes.first(where: { target.hasPrefix($0.0) }) else { return nil }
        guard let parts = StorageRoute.objectTarget(target, after: prefix) else { return nil }
        self.kind = kind
        (bucket, name, query, refusal) = parts
    }

    /// `/storage/v1/b[/{bucket}][?query]`: the bucket (decoded; empty for the list) and query.
    static func bucketTarget(_ target: String) -> (String, Substring?)? {
        let split = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        let query = split.count > 1 ? split[1] : nil
        if split[0] == "/storage/v1/b" { return ("", query) }
        guard split[0].hasPrefix("/storage/v1/b/") else { return nil }
        let segment = split[0].dropFirst("/storage/v1/b/".count)
        guard !segment.isEmpty, !segment.contains("/"), let bucket = PercentDecoding.decode(segment) else { return nil }
        return (bucket, query)
    }

    /// The query's parameters, decoded.
    var parameters: [String: String] {
        StorageRoute.parameters(of: query)
    }
}
