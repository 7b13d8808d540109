public import HearthCore

/// An object as the rules see it (`resource`, `request.resource`): Firebase's rules resource
/// (firebase.google.com/docs/reference/security/storage#resource).
public struct StorageRuleObject: Sendable, Equatable {
    public var name: String
    public var bucket: String
    public var generation: Int64
    public var metageneration: Int64
    public var size: Int64
    /// Milliseconds since 1970.
    public var timeCreated: Double
    public var updated: Double
    public var md5Hash: String
    public var crc32c: String
    public var etag: String
    public var contentType: String?
    public var contentDisposition: String?
    public var contentEncoding: String?
    public var contentLanguage: String?
    public var cacheControl: String?
    public var metadata: [String: String]

    public init(
        name: String,
        bucket: String,
        generation: Int64 = 0,
        metageneration: Int64 = 1,
        size: Int64,
        timeCreated: Double,
        updated: Double,
        md5Hash: String = "",
        crc32c: String = "",
        etag: String = "",
        contentType: String? = nil,
        metadata: [String: String] = [:]
    ) {
        self.name = name
        self.bucket = bucket
        self.generation = generation
        self.metageneration = metageneration
        self.size = size
        self.timeCreated = timeCreated
        self.updated = updated
        self.md5Hash = md5Hash
        self.crc32c = crc32c
        self.etag = etag
        self.contentType = contentType
        self.metadata = metadata
    }

    /// Reads an object from a simulation or a test case: `name` and `size` are needed, the
    /// rest defaults (`contentType`, `metadata`, `timeCreated`/`updated` in milliseconds...).
    public init(json: JSONValue, bucket defaultBucket: String, now: Double) throws(RuleInputError) {
        guard case .object = json else { throw RuleInputError("an object resource must be a JSON object") }
        func string(_ key: String) throws(RuleInputError) -> String? {
            guard let value = json[key], value != .null else { return nil }
            guard let text = value.stringValue else { throw RuleInputError("'\(key)' must be a string") }
            return text
        }
        func number(_ key: String) throws(RuleInputError) -> Double? {
            guard let value = json[key], value != .null else { return nil }
            if let n = value.numberValue { return n }
            if let text = value.stringValue, let n = Double(text) { return n }
            throw RuleInputError("'\(key)' must be a number")
        }
        guard let name = try string("name") else { throw RuleInputError("an object resource needs its 'name'") }
        var metadata: [String: String] = [:]
        if let custom = json["metadata"], custom != .null {
            guard let members = custom.objectValue else {
                throw RuleInputError("'metadata' must be an object of strings")
            }
            for (key, value) in members {
                guard let text = value.stringValue else { throw RuleInputError("'metadata.\(key)' must be a string") }
                metadata[key] = text
            }
        }
        self.init(
            name: name,
            bucket: try string("bucket") ?? defaultBucket,
            generation: Int64(try number("generation") ?? 1),
            metageneration: Int64(try number("metageneration") ?? 1),
            size: Int64(try number("size") ?? 0),
            timeCreated: try number("timeCreated") ?? now,
            updated: try number("updated") ?? now,
            md5Hash: try string("md5Hash") ?? "",
            crc32c: try string("crc32c") ?? "",
            etag: try string("etag") ?? "",
            contentType: try string("contentType"),
            metadata: metadata
        )
        contentDisposition = try string("contentDisposition")
        contentEncoding = try string("contentEncoding")
        contentLanguage = try string("contentLanguage")
        cacheControl = try string("cacheControl")
    }

    var value: StorageRuleValue {
        func text(_ s: String?) -> StorageRuleValue { s.map(StorageRuleValue.string) ?? .null }
        func time(_ millis: Double) -> StorageRuleValue {
            let whole = (millis / 1000).rounded(.down)
            return StorageTime.timestamp(seconds: Int64(whole), nanos: Int64((millis - whole * 1000) * 1_000_000))
        }
        return .map([
            "name": .string(name), "bucket": .string(bucket), "generation": .int(generation),
            "metageneration": .int(metageneration), "size": .int(size), "timeCreated": time(timeCreated),
            "updated": time(updated), "md5Hash": .string(md5Hash), "crc32c": .string(crc32c), "etag": .string(etag),
            "contentType": text(contentType), "contentDisposition": text(contentDisposition),
            "contentEncoding": text(contentEncoding), "contentLanguage": text(contentLanguage),
            "cacheControl": text(cacheControl), "metadata": .map(metadata.mapValues(StorageRuleValue.string)),
        ])
    }
}

/// What a storage request asks, as the rules judge it.
public struct StorageRuleRequest: Sendable {
    public var method: StorageMethod
    public var bucket: String
    /// The object's name; for `list`, the prefix listed (trailing slashes do not count).
    public var name: String
    public var auth: RuleAuth?
    /// The object as it is (`resource`), nil when there is none.
    public var resource: StorageRuleObject?
    /// The object as the request would leave it (`request.resource`): uploads and metadata
    /// updates; nil for reads, listings and deletes.
    public var newResource: StorageRuleObject?
    /// `request.time`, milliseconds since 1970.
    public var now: Double

    public init(
        method: StorageMethod,
        bucket: String,
        name: String,
        auth: RuleAuth?,
        resource: StorageRuleObject? = nil,
        newResource: StorageRuleObject? = nil,
        now: Double
    ) {
        self.method = method
        self.bucket = bucket
        self.name = name
        self.auth = auth
        self.resource = resource
        self.newResource = newResource
        self.now = now
    }

    /// `/b/{bucket}/o/{name...}` as segments.
    var segments: [String] { Self.segments(bucket: bucket, name: name) }

    /// `/b/{bucket}/o/{name...}` as segments (a listing's trailing slashes do not count).
    static func segments(bucket: String, name: String) -> [String] {
        var trimmed = Substring(name)
        while trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        let nameSegments =
            trimmed.isEmpty ? [] : trimmed.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        return ["b", bucket, "o"] + nameSegments
    }

    /// The `request` variable: `auth` (`uid`, `token`), `method`, `path`, `resource`, `time`.
    var value: StorageRuleValue {
        let whole = (now / 1000).rounded(.down)
        let auth: StorageRuleValue =
            self.auth.map { auth in
                .map(["uid": .string(auth.uid), "token": StorageRuleValue(json: auth.token)])
            } ?? .null
        return .map([
            "auth": auth,
            "method": .string(method.rawValue),
            "path": .path(segments),
            "resource": newResource?.value ?? .null,
            "time": StorageTime.timestamp(seconds: Int64(whole), nanos: Int64((now - whole * 1000) * 1_000_000)),
        ])
    }
}
