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

    private static func parseWritePath(
        _ urlPath: String,
        allowPriority: Bool
    ) throws -> (
        path: DataPath, isPriority: Bool
    ) {
        var text = urlPath
        return try text.withUTF8 { bytes in
            try parseWritePath(bytes: bytes, urlPath: urlPath, allowPriority: allowPriority)
        }
    }

    /// Splits on the byte '/' (not on Characters: a combining mark could glue onto '/'); every
    /// segment lies between ASCII bytes, so it is valid UTF-8 on its own.
    private static func parseWritePath(
        bytes: UnsafeBufferPointer<UInt8>,
        urlPath: String,
        allowPriority: Bool
    ) throws -> (path: DataPath, isPriority: Bool) {
        var keys: [ChildKey] = []
        var isPriority = false
        let slash = UInt8(ascii: "/")
        var start = 0
        while start < bytes.count {
            if bytes[start] == slash {
                start += 1
                continue
            }
            var end = start + 1
            while end < bytes.count && bytes[end] != slash { end += 1 }
            let segment = UnsafeBufferPointer(rebasing: bytes[start..<end])
            start = end
            if isPriority {
                throw CoreError.priorityNotLastSegment(urlPath)
            }
            if allowPriority && segment.elementsEqual(".priority".utf8) {
                isPriority = true
                continue
            }
            let key = String(decoding: segment, as: UTF8.self)
            if let problem = KeyValidator.problem(bytes: segment) {
                throw KeyValidator.error(problem, key: key, path: urlPath)
            }
            if keys.isEmpty { keys.reserveCapacity(8) }
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
