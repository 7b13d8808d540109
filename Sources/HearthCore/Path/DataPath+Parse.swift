extension DataPath {
    /// Parses an already percent-decoded URL path such as `/users/abc`. Empty segments are
    /// skipped, as Firebase does (`//a///b/` is `/a/b`).
    /// - Throws: `CoreError` (`.invalidKey`, `.tooDeep`) naming the key and the path.
    public static func parse(_ urlPath: String) throws -> DataPath {
        let parsed = try parseWritePath(urlPath, allowPriority: false)
        return parsed.path
    }

    /// Parses a path to write to, where a last segment `.priority` names the priority of the
    /// node at `path` rather than a child.
    /// - Throws: `CoreError` when a key is invalid, `.priority` is not last, or the path is too deep.
    public static func parseWritePath(_ urlPath: String) throws -> (path: DataPath, isPriority: Bool) {
        try parseWritePath(urlPath, allowPriority: true)
    }

    private static func parseWritePath(_ urlPath: String, allowPriority: Bool) throws -> (
        path: DataPath, isPriority: Bool
    ) {
        var keys: [ChildKey] = []
        var isPriority = false
        // Split on the byte '/', not on Characters (a combining mark could glue onto '/').
        for segment in urlPath.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: true) {
            let key = String(Substring(segment))
            if isPriority {
                throw CoreError.priorityNotLastSegment(urlPath)
            }
            if allowPriority && key == ".priority" {
                isPriority = true
                continue
            }
            try KeyValidator.validate(key, inPath: urlPath)
            keys.append(ChildKey(key))
            if keys.count > KeyValidator.maxDepth {
                throw CoreError.pathTooDeep(urlPath)
            }
        }
        return (DataPath(keys: keys), isPriority)
    }

    /// Creates a path from keys given as strings, validating each.
    public init(validating keys: [String]) throws {
        let description = "/" + keys.joined(separator: "/")
        for key in keys { try KeyValidator.validate(key, inPath: description) }
        if keys.count > KeyValidator.maxDepth { throw CoreError.pathTooDeep(description) }
        self.init(keys: keys.map(ChildKey.init))
    }
}
