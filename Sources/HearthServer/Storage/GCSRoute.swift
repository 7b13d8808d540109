/// A request of Cloud Storage's JSON API, as firebase-admin and google-cloud-storage send it
/// (`STORAGE_EMULATOR_HOST`): `/storage/v1/b/{bucket}/o[/{name}]` (list, metadata, patch,
/// delete), `/upload/storage/v1/b/{bucket}/o?uploadType=media|multipart&name=` and
/// `/download/storage/v1/b/{bucket}/o/{name}?alt=media`; the buckets, `/storage/v1/b` and
/// `/storage/v1/b/{bucket}` (`bucket` empty for the list); copies,
/// `/storage/v1/b/{bucket}/o/{name}/copyTo|rewriteTo/b/{bucket}/o/{name}`; and an object's ACL,
/// `/storage/v1/b/{bucket}/o/{name}/acl[/{entity}]`. Every `/storage/v1/b…` path is served at
/// `/b…` as well, as the emulator serves it, except one ending in `.json` (a database path).
struct GCSRoute: Equatable {
    enum Kind: Equatable { case json, upload, download, bucket }

    /// Where a copy goes, and whether it was asked as `rewriteTo` (answered as a rewrite).
    struct Copy: Equatable {
        let rewrite: Bool
        let bucket: String
        let name: String
    }

    let kind: Kind
    let bucket: String
    let name: String?
    let query: Substring?
    /// Why the target is refused (400), as `StorageRoute.refusal`.
    let refusal: String?
    /// The destination of a copy (`copyTo`, `rewriteTo`), nil for every other request.
    var copy: Copy? = nil
    /// An object's ACL (`…/o/{name}/acl`): `.some(nil)` the list, `.some(entity)` one entry; nil
    /// for every other request.
    var acl: String?? = nil

    static let prefixes: [(String, Kind)] = [
        ("/storage/v1/b/", .json), ("/upload/storage/v1/b/", .upload), ("/download/storage/v1/b/", .download),
        ("/b/", .json),
    ]

    init?(target: String) {
        // `/b…` is the JSON API's short form, but `/b/….json` stays the database's.
        let path = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)[0]
        if path == "/b" || path.hasPrefix("/b/") {
            guard !path.hasSuffix(".json") else { return nil }
            self.init(canonical: "/storage/v1" + target)
        } else {
            self.init(canonical: target)
        }
    }

    /// A target under `/storage/v1/b`, `/upload/storage/v1/b/` or `/download/storage/v1/b/`.
    private init?(canonical target: String) {
        if let (bucket, query) = Self.bucketTarget(target) {
            (kind, self.bucket, name, self.query, refusal) = (.bucket, bucket, nil, query, nil)
            return
        }
        guard let (prefix, kind) = Self.prefixes.first(where: { target.hasPrefix($0.0) }) else { return nil }
        if kind == .json, let (source, copy) = Self.copyTarget(target) {
            (self.kind, bucket, name, query, refusal) = source
            self.copy = copy
            return
        }
        if kind == .json, let (source, entity) = Self.aclTarget(target) {
            (self.kind, bucket, name, query, refusal) = source
            acl = .some(entity)
            return
        }
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

    /// `/storage/v1/b/{bucket}/o/{name}/copyTo|rewriteTo/b/{bucket}/o/{name}[?query]`: the source
    /// as a route and the destination (names and buckets decoded once). Nil for any other target;
    /// a refusal when a part is not percent-encoded UTF-8.
    static func copyTarget(_ target: String) -> ((Kind, String, String?, Substring?, String?), Copy)? {
        let split = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        let query = split.count > 1 ? split[1] : nil
        let segments = split[0].dropFirst("/storage/v1/b/".count).split(
            separator: "/",
            omittingEmptySubsequences: false
        )
        guard segments.count == 8, segments[1] == "o", segments[4] == "b", segments[6] == "o",
            segments[3] == "copyTo" || segments[3] == "rewriteTo"
        else { return nil }
        let decoded = [segments[0], segments[2], segments[5], segments[7]].map { PercentDecoding.decode($0) }
        let refusal =
            decoded.contains { $0 == nil || $0!.isEmpty }
            ? "A copy's buckets and names are percent-encoded UTF-8, one segment each."
            : StorageRoute.undecodable(query)
        let copy = Copy(rewrite: segments[3] == "rewriteTo", bucket: decoded[2] ?? "", name: decoded[3] ?? "")
        return ((.json, decoded[0] ?? "", decoded[1] ?? "", query, refusal), copy)
    }

    /// `/storage/v1/b/{bucket}/o/{name}/acl[/{entity}][?query]`: the object as a route and the
    /// entity, if one is named (each decoded once). Nil for any other target; a refusal when a
    /// part is not percent-encoded UTF-8.
    static func aclTarget(_ target: String) -> ((Kind, String, String?, Substring?, String?), String?)? {
        let split = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        let query = split.count > 1 ? split[1] : nil
        let segments = split[0].dropFirst("/storage/v1/b/".count).split(
            separator: "/",
            omittingEmptySubsequences: false
        )
        guard segments.count == 4 || segments.count == 5, segments[1] == "o", segments[3] == "acl" else { return nil }
        let decoded = segments.map { PercentDecoding.decode($0) }
        let entity = segments.count == 5 ? decoded[4] : nil
        let refusal =
            [decoded[0], decoded[2]].contains { $0 == nil || $0!.isEmpty } || (segments.count == 5 && entity == nil)
            ? "An ACL request's bucket, object name and entity are percent-encoded UTF-8, one segment each."
            : StorageRoute.undecodable(query)
        return ((.json, decoded[0] ?? "", decoded[2] ?? "", query, refusal), segments.count == 5 ? entity ?? "" : nil)
    }

    /// The query's parameters, decoded.
    var parameters: [String: String] {
        StorageRoute.parameters(of: query)
    }
}
