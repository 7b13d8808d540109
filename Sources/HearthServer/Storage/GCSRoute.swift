/// A request of Cloud Storage's JSON API, as firebase-admin and google-cloud-storage send it
/// (`STORAGE_EMULATOR_HOST`): `/storage/v1/b/{bucket}/o[/{name}]` (list, metadata, patch,
/// delete), `/upload/storage/v1/b/{bucket}/o?uploadType=media|multipart&name=` and
/// `/download/storage/v1/b/{bucket}/o/{name}?alt=media`.
struct GCSRoute: Equatable {
    enum Kind: Equatable { case json, upload, download }

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
        guard let (prefix, kind) = Self.prefixes.first(where: { target.hasPrefix($0.0) }) else { return nil }
        guard let parts = StorageRoute.objectTarget(target, after: prefix) else { return nil }
        self.kind = kind
        (bucket, name, query, refusal) = parts
    }

    /// The query's parameters, decoded.
    var parameters: [String: String] {
        StorageRoute.parameters(of: query)
    }
}
