import Foundation

extension ObjectMetadata {
    /// The object as Cloud Storage's JSON API (what firebase-admin and google-cloud-storage read)
    /// gives it; `base` is the server's address (`http://host:port`) for the links. `full` (the
    /// `full` projection) adds the ACL.
    public func gcsResource(base: String, full: Bool = false) -> GCSObjectResource {
        let firebase = firebaseResource
        let encodedName = Self.percentEncoded(name)
        let encodedBucket = Self.percentEncoded(bucket)
        var custom = metadata
        if !downloadTokens.isEmpty { custom[MetadataPatch.tokensKey] = downloadTokens.joined(separator: ",") }
        return GCSObjectResource(
            kind: "storage#object",
            id: "\(bucket)/\(name)/\(generation)",
            selfLink: "\(base)/storage/v1/b/\(encodedBucket)/o/\(encodedName)",
            mediaLink:
                "\(base)/download/storage/v1/b/\(encodedBucket)/o/\(encodedName)?generation=\(generation)&alt=media",
            name: name,
            bucket: bucket,
            generation: generation,
            metageneration: firebase.metageneration,
            contentType: firebase.contentType,
            storageClass: "STANDARD",
            size: firebase.size,
            md5Hash: md5Hash,
            crc32c: crc32c,
            etag: firebase.etag,
            timeCreated: firebase.timeCreated,
            updated: firebase.updated,
            timeStorageClassUpdated: firebase.timeCreated,
            metadata: custom.isEmpty ? nil : custom,
            cacheControl: cacheControl,
            contentDisposition: contentDisposition,
            contentEncoding: contentEncoding,
            contentLanguage: contentLanguage,
            acl: full ? gcsACL(base: base) : nil
        )
    }

    /// The ACL as the JSON API gives each entry (`storage#objectAccessControl`).
    public func gcsACL(base: String) -> [GCSObjectAccessControl] {
        (acl ?? []).map { gcsACLEntry($0, base: base) }
    }

    public func gcsACLEntry(_ entry: ObjectACLEntry, base: String) -> GCSObjectAccessControl {
        GCSObjectAccessControl(
            id: "\(bucket)/\(name)/\(generation)/\(entry.entity)",
            selfLink:
                "\(base)/storage/v1/b/\(Self.percentEncoded(bucket))/o/\(Self.percentEncoded(name))/acl/\(Self.percentEncoded(entry.entity))",
            bucket: bucket,
            object: name,
            generation: generation,
            entity: entry.entity,
            role: entry.role,
            etag: firebaseResource.etag
        )
    }

    /// `text` as one URL segment or query value: everything but RFC 3986's unreserved
    /// characters percent-encoded (an object name's slashes too).
    public static func percentEncoded(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? text
    }

    private static let unreserved = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~"))
}

/// Cloud Storage's object resource (JSON API v1), field by field; absent optionals are left out.
public struct GCSObjectResource: Encodable, Equatable, Sendable {
    public var kind: String
    public var id: String
    public var selfLink: String
    public var mediaLink: String
    public var name: String
    public var bucket: String
    public var generation: String
    public var metageneration: String
    public var contentType: String
    public var storageClass: String
    public var size: String
    public var md5Hash: String
    public var crc32c: String
    public var etag: String
    public var timeCreated: String
    public var updated: String
    public var timeStorageClassUpdated: String
    public var metadata: [String: String]?
    public var cacheControl: String?
    public var contentDisposition: String?
    public var contentEncoding: String?
    public var contentLanguage: String?
    /// Only in the `full` projection.
    public var acl: [GCSObjectAccessControl]?
}

/// One entry of an object's ACL as the JSON API gives it.
public struct GCSObjectAccessControl: Encodable, Equatable, Sendable {
    public var kind = "storage#objectAccessControl"
    public var id: String
    public var selfLink: String
    public var bucket: String
    public var object: String
    public var generation: String
    public var entity: String
    public var role: String
    public var etag: String
}

/// An object's ACL as `GET …/acl` gives it: `{kind, items}`.
public struct GCSObjectAccessControls: Encodable, Sendable {
    public var kind = "storage#objectAccessControls"
    public var items: [GCSObjectAccessControl]

    public init(_ object: ObjectMetadata, base: String) {
        items = object.gcsACL(base: base)
    }
}

/// A JSON API listing: `{kind, items, prefixes, nextPageToken}` with whole object resources.
public struct GCSObjectList: Encodable, Sendable {
    public var kind = "storage#objects"
    public var items: [GCSObjectResource]
    public var prefixes: [String]
    public var nextPageToken: String?

    public init(_ listing: ObjectListing, base: String, full: Bool = false) {
        items = listing.items.map { $0.gcsResource(base: base, full: full) }
        prefixes = listing.prefixes
        nextPageToken = listing.nextPageToken
    }
}

extension Encodable {
    /// The JSON text, keys sorted, slashes unescaped.
    public func storageJSON() -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? Array(encoder.encode(self))) ?? Array("{}".utf8)
    }
}

/// A finished rewrite (`rewriteTo`): `{kind, totalBytesRewritten, objectSize, done, resource}`.
public struct GCSRewriteResponse: Encodable, Sendable {
    public var kind = "storage#rewriteResponse"
    public var totalBytesRewritten: String
    public var objectSize: String
    public var done = true
    public var resource: GCSObjectResource

    public init(_ object: ObjectMetadata, base: String) {
        totalBytesRewritten = String(object.size)
        objectSize = String(object.size)
        resource = object.gcsResource(base: base)
    }
}
