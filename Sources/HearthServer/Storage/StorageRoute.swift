import HearthStorage

/// A request of Firebase Storage's client API: `/v0/b/{bucket}/o` (list, upload) or
/// `/v0/b/{bucket}/o/{name}` (the object; its whole path one percent-encoded segment).
struct StorageRoute: Equatable {
    let bucket: String
    /// The object's name, decoded; nil for the bucket's objects as a whole.
    let name: String?
    let query: Substring?
    /// Why the target is refused (400) before anything else: a name or parameter that is not
    /// percent-encoded UTF-8, a name whose slashes are not encoded.
    let refusal: String?

    static let prefix = "/v0/b/"

    /// Nil when `target` (the raw request target) is not under `/v0/b/`.
    init?(target: String) {
        guard target.hasPrefix(Self.prefix), let parts = Self.objectTarget(target, after: Self.prefix) else {
            return nil
        }
        (bucket, name, query, refusal) = parts
    }

    /// `{bucket}/o[/{name}][?query]` after `prefix`, the bucket and name percent-decoded once (the
    /// name is one segment: its slashes arrive as `%2F`; a `%25` stays a `%`, never decoded
    /// again). Nil when the target is not `{bucket}/o…`; a refusal when it is, but spelled wrong.
    static func objectTarget(
        _ target: String,
        after prefix: String
    ) -> (bucket: String, name: String?, query: Substring?, refusal: String?)? {
        let split = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        let query = split.count > 1 ? split[1] : nil
        let segments = split[0].dropFirst(prefix.count).split(separator: "/", omittingEmptySubsequences: false)
        guard segments.count >= 2, segments[1] == "o" else { return nil }
        var refusal = undecodable(query)
        guard let bucket = PercentDecoding.decode(segments[0]) else {
            return ("", nil, query, "The bucket name in the URL is not percent-encoded UTF-8.")
        }
        // `o/` (a trailing slash, as the emulator's tests send uploads) is the bucket's objects.
        guard segments.count > 2, !(segments.count == 3 && segments[2].isEmpty) else {
            return (bucket, nil, query, refusal)
        }
        if segments.count > 3 {
            refusal =
                "An object's name is one segment of the URL: percent-encode the slashes in it "
                + "(/o/users%2Fu1%2Fa.jpg, not /o/users/u1/a.jpg)."
        }
        guard let name = PercentDecoding.decode(segments[2]) else {
            return (bucket, nil, query, "The object name in the URL is not percent-encoded UTF-8.")
        }
        return (bucket, name, query, refusal)
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

    /// The refusal of a query with a parameter that is not percent-encoded UTF-8 (`name=%C0%AE`,
    /// an overlong `.`), which `parameters` would otherwise read as empty.
    static func undecodable(_ query: Substring?) -> String? {
        for pair in (query ?? "").split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            if parts.contains(where: { PercentDecoding.decodeFormComponent($0) == nil }) {
                let shown = parts[0].prefix(40)
                return "The query parameter '\(shown)' is not percent-encoded UTF-8."
            }
        }
        return nil
    }
}
