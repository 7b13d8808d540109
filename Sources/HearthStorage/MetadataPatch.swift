import Foundation

/// A metadata update (`PATCH`), as Firebase applies one: an absent field is unchanged, `null`
/// removes it; `metadata` merges key by key (a `null` value removes that key, `metadata: null`
/// clears them all); a `firebaseStorageDownloadTokens` key replaces the download tokens (the way
/// to revoke a download URL) and is not kept as custom metadata.
public struct MetadataPatch: Sendable, Equatable {
    /// A field's change: set it, or remove it.
    public enum Change: Sendable, Equatable {
        case set(String)
        case remove
    }

    public var contentType: Change?
    public var cacheControl: Change?
    public var contentDisposition: Change?
    public var contentEncoding: Change?
    public var contentLanguage: Change?
    /// nil: unchanged; `.some(nil)`: all removed; else each key's change.
    public var metadata: [String: Change]??
    /// The JSON API's `acl`: nil unchanged; `.some(nil)` removed; else the new list.
    public var acl: [ObjectACLEntry]??

    public init() {}

    /// Reads a PATCH body (a JSON object) already decoded by `JSONSerialization`.
    /// - Throws: `StorageError` `.invalidMetadata` for a field that is not a string or null.
    public init(json: [String: Any]) throws(StorageError) {
        func change(_ key: String) throws(StorageError) -> Change? {
            guard let value = json[key] else { return nil }
            if value is NSNull { return .remove }
            guard let text = Self.string(value) else {
                throw StorageError(.invalidMetadata, "The metadata field '\(key)' must be a string or null.")
            }
            return .set(text)
        }
        contentType = try change("contentType")
        cacheControl = try change("cacheControl")
        contentDisposition = try change("contentDisposition")
        contentEncoding = try change("contentEncoding")
        contentLanguage = try change("contentLanguage")
        if let acl = json["acl"] {
            self.acl = .some(acl is NSNull ? nil : try ObjectACLEntry.list(json: acl))
        }
        if let custom = json["metadata"] {
            if custom is NSNull {
                metadata = .some(nil)
            } else if let map = custom as? [String: Any] {
                var changes: [String: Change] = [:]
                for (key, value) in map {
                    if value is NSNull {
                        changes[key] = .remove
                    } else if let text = Self.string(value) {
                        changes[key] = .set(text)
                    } else {
                        throw StorageError(
                            .invalidMetadata,
                            "Custom metadata '\(key)' must be a string, a number or null."
                        )
                    }
                }
                metadata = .some(changes)
            } else {
                throw StorageError(.invalidMetadata, "'metadata' must be an object of strings, or null.")
            }
        }
    }

    func apply(to object: inout ObjectMetadata) {
        func applied(_ change: Change?, to value: String?) -> String? {
            switch change {
            case nil: return value
            case .remove: return nil
            case .set(let text): return text
            }
        }
        object.contentType = applied(contentType, to: object.contentType)
        object.cacheControl = applied(cacheControl, to: object.cacheControl)
        object.contentDisposition = applied(contentDisposition, to: object.contentDisposition)
        object.contentEncoding = applied(contentEncoding, to: object.contentEncoding)
        object.contentLanguage = applied(contentLanguage, to: object.contentLanguage)
        if let acl { object.acl = acl }
        switch metadata {
        case nil:
            break
        case .some(nil):
            object.metadata = [:]
        case .some(let changes?):
            for (key, change) in changes {
                if key == Self.tokensKey {
                    if case .set(let tokens) = change {
                        object.downloadTokens = tokens.split(separator: ",").map { String($0) }.filter { !$0.isEmpty }
                    } else {
                        object.downloadTokens = []
                    }
                    continue
                }
                object.metadata[key] = applied(change, to: object.metadata[key])
            }
        }
    }

    /// The custom metadata key whose value replaces the download tokens.
    public static let tokensKey = "firebaseStorageDownloadTokens"

    private static func string(_ value: Any) -> String? {
        if let text = value as? String { return text }
        if let number = value as? Int { return String(number) }
        if let number = value as? Double { return String(number) }
        if let flag = value as? Bool { return String(flag) }
        return nil
    }
}
