public import HearthCore

extension StorageRuleRequest {
    /// Reads the request a simulation (`POST /.settings/storage.rules:simulate`) or a test case
    /// (`StorageRuleTestRunner`) describes: `{"method", "path", "bucket"?, "auth"?, "now"?,
    /// "resource"?, "newResource"?}`. A missing `bucket`, `now` or `auth` comes from `defaults`
    /// (a test file's top level), else `bucket` and `now`. With `namingObjectsByPath`, a resource
    /// without a `name` takes `path` (test cases); otherwise it must name itself.
    /// - Throws: `RuleInputError` naming the field that is wrong.
    public init(
        json: JSONValue,
        defaults: JSONValue = .object([]),
        bucket defaultBucket: String,
        now defaultNow: Double,
        namingObjectsByPath: Bool = false
    ) throws(RuleInputError) {
        guard let methodName = json["method"]?.stringValue, let method = StorageMethod(rawValue: methodName) else {
            throw RuleInputError("'method' must be get, list, create, update or delete")
        }
        guard let path = json["path"]?.stringValue else {
            throw RuleInputError("'path' must be the object's name, e.g. users/alice/a.png")
        }
        let bucket = json["bucket"]?.stringValue ?? defaults["bucket"]?.stringValue ?? defaultBucket
        let now = json["now"]?.numberValue ?? defaults["now"]?.numberValue ?? defaultNow
        let auth = try (json["auth"] ?? defaults["auth"]).flatMap { value throws(RuleInputError) in
            try RuleAuth(json: value)
        }
        func object(_ key: String) throws(RuleInputError) -> StorageRuleObject? {
            guard let value = json[key], value != .null else { return nil }
            guard case .object(var members) = value else { throw RuleInputError("'\(key)' must be an object") }
            if namingObjectsByPath, !members.contains(where: { $0.0 == "name" }) {
                members.append(("name", .string(path)))
            }
            return try StorageRuleObject(json: .object(members), bucket: bucket, now: now)
        }
        self.init(
            method: method,
            bucket: bucket,
            name: path,
            auth: auth,
            resource: try object("resource"),
            newResource: try object("newResource"),
            now: now
        )
    }
}
