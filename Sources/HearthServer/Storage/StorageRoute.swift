import HearthStorage

/// A request of Firebase Storage's client API: `/v0/b/{bucket}/o` (list, upload) or
/// `/v0/b/{bucket}/o/{name}` (the object; its whole path one percent-encoded segment).
struct StorageRoute: Equatable {
    let bucket: String
    /// The object's name, decoded; nil for the bucket's objects as a whole.
    let name: String?
    let query: Substring?

    static let prefix = "/v0/b/"

    /// Nil when `target` (the raw request target) is not under `/v0/b/`.
    init?(target: String) {
        guard target.hasPrefix(Self.prefix), let parts = Self.objectTarget(target, after: Self.prefix) else {
            return nil
        }
        (bucket, name, query) = parts
    }

    /// `{bucket}/o[/{name}][?query]` after `prefix`, the bucket and name percent-decoded (the name
    /// is one segment: its slashes arrive as `%2F`).
    static func objectTarget(_ target: String, after prefix: String) -> (String, String?, Substring?)? {
        let split = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        let query = split.count > 1 ? split[1] : nil
        let segments = split[0].dropFirst(prefix.count).split(separator: "/", omittingEmptySubsequences: false)
        guard segments.count == 2 || segments.count == 3, segments[1] == "o",
            let bucket = PercentDecoding.decode(segments[0])
        else { return nil }
        // `o/` (a trailing slash, as the emulator's tests send uploads) is the bucket's objects.
        guard segments.count == 3, !segments[2].isEmpty else { return (bucket, nil, query) }
        guard let name = PercentDecoding.decode(segments[2]) else { return nil }
        return (bucket, name, query)
    }

    /// The query's parameters, decoded (`name`, `alt`, `token`, `prefix`, ...).
    var parameters: [String: String] {
        Self.parameters(of: query)
    }

    static func parameters(of query: Substring?) -> [String: String] {
        var found: [String: String] = [:]
        for pair in (query ?? "").split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let key = PercentDecoding.decodeFormComponent(parts[0]) else { continue }
            found[key] = parts.count > 1 ? PercentDecoding.decodeFormComponent(parts[1]) ?? "" : ""
        }
        return found
    }
}
