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

    static let prefixes: [(String, Kind)] = [
        ("/storage/v1/b/", .json), ("/upload/storage/v1/b/", .upload), ("/download/storage/v1/b/", .download),
    ]

    init?(target: String) {
        guard let (prefix, kind) = Self.prefixes.first(where: { target.hasPrefix($0.0) }) else { return nil }
        let split = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        query = split.count > 1 ? split[1] : nil
        let segments = split[0].dropFirst(prefix.count).split(
            separator: "/",
            maxSplits: 2,
            omittingEmptySubsequences: false
        )
        guard segments.count >= 2, segments[1] == "o", let bucket = PercentDecoding.decode(segments[0]) else {
            return nil
        }
        self.kind = kind
        self.bucket = bucket
        if segments.count == 3 {
            guard let name = PercentDecoding.decode(segments[2]) else { return nil }
            self.name = name
        } else {
            name = nil
        }
    }

    /// The query's parameters, decoded.
    var parameters: [String: String] {
        StorageRoute.parameters(of: query)
    }
}
