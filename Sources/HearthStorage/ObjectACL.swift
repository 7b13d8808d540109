import Foundation

/// One grant of an object's access-control list, as Cloud Storage's JSON API spells it (an
/// `ObjectAccessControl`: an entity and its role). Hearth keeps an object's list and gives it back
/// (`blob.acl`, `make_public`, `predefinedAcl`), but grants nothing by it: the JSON API takes the
/// admin credential only, and the client API is judged by the storage rules and download tokens.
/// The admin owns every object, so a list holds only the grants beyond that; an object never
/// given one has none.
public struct ObjectACLEntry: Codable, Hashable, Sendable {
    public var entity: String
    public var role: String

    /// The roles an object's entry may have.
    public static let roles: Set<String> = ["OWNER", "READER"]
    /// The most entries one object's list keeps (Cloud Storage's limit).
    public static let maxEntries = 100

    /// - Throws: `StorageError` `.invalidMetadata` for an entity Cloud Storage does not name that
    ///   way, or a role other than `OWNER` and `READER`.
    public init(entity: String, role: String) throws(StorageError) {
        guard Self.isEntity(entity) else {
            throw StorageError(
                .invalidMetadata,
                "An ACL entity is allUsers, allAuthenticatedUsers, user-…, group-…, domain-… or project-{owners|editors|viewers}-…; '\(entity.prefix(80))' is not."
            )
        }
        guard Self.roles.contains(role) else {
            throw StorageError(.invalidMetadata, "An object's ACL role is OWNER or READER, not '\(role.prefix(40))'.")
        }
        self.entity = entity
        self.role = role
    }

    public init(from decoder: any Decoder) throws {
        struct Fields: Decodable {
            let entity: String
            let role: String
        }
        let fields = try Fields(from: decoder)
        do {
            try self.init(entity: fields.entity, role: fields.role)
        } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: error.message))
        }
    }

    static func isEntity(_ entity: String) -> Bool {
        guard entity.utf8.count <= 256, !entity.unicodeScalars.contains(where: { $0.value < 0x20 || $0 == "/" }) else {
            return false
        }
        if entity == "allUsers" || entity == "allAuthenticatedUsers" { return true }
        let prefixes = ["user-", "group-", "domain-", "project-owners-", "project-editors-", "project-viewers-"]
        return prefixes.contains { entity.hasPrefix($0) && entity.count > $0.count }
    }

    /// A list given as JSON (`[{"entity": …, "role": …}, …]`, other members ignored).
    /// - Throws: `StorageError` `.invalidMetadata` for anything else, a bad entry, or more than
    ///   `maxEntries`.
    public static func list(json: Any) throws(StorageError) -> [ObjectACLEntry] {
        guard let items = json as? [Any] else {
            throw StorageError(.invalidMetadata, "'acl' is a list of {\"entity\", \"role\"} objects, or null.")
        }
        var entries: [ObjectACLEntry] = []
        for item in items {
            guard let fields = item as? [String: Any], let entity = fields["entity"] as? String,
                let role = fields["role"] as? String
            else {
                throw StorageError(.invalidMetadata, "Each ACL entry is an object with an 'entity' and a 'role'.")
            }
            let entry = try ObjectACLEntry(entity: entity, role: role)
            entries.removeAll { $0.entity == entry.entity }
            entries.append(entry)
        }
        guard entries.count <= maxEntries else {
            throw StorageError(.invalidMetadata, "An object's ACL holds at most \(maxEntries) entries.")
        }
        return entries
    }

    /// The list a `predefinedAcl` (or `destinationPredefinedAcl`) names, beyond the owner (the
    /// admin): `publicRead` adds `allUsers` and `authenticatedRead` `allAuthenticatedUsers` as
    /// readers; `private`, `projectPrivate`, `bucketOwnerRead` and `bucketOwnerFullControl` add
    /// none.
    /// - Throws: `StorageError` `.invalidMetadata` for another name.
    public static func predefined(_ name: String) throws(StorageError) -> [ObjectACLEntry] {
        switch name {
        case "publicRead": return [try ObjectACLEntry(entity: "allUsers", role: "READER")]
        case "authenticatedRead": return [try ObjectACLEntry(entity: "allAuthenticatedUsers", role: "READER")]
        case "private", "projectPrivate", "bucketOwnerRead", "bucketOwnerFullControl": return []
        default:
            throw StorageError(
                .invalidMetadata,
                "predefinedAcl is authenticatedRead, bucketOwnerFullControl, bucketOwnerRead, private, "
                    + "projectPrivate or publicRead, not '\(name.prefix(40))'."
            )
        }
    }
}

extension ObjectStore {
    /// Changes `name`'s ACL by `change` (given the list as stored) under the store's change lock:
    /// a metadata change like `update` (`metageneration` + 1).
    /// - Throws: `StorageError` `.notFound`, what `change` throws, `.invalidMetadata` past
    ///   `ObjectACLEntry.maxEntries`.
    public func changeACL(
        _ bucket: BucketName,
        _ name: ObjectName,
        _ change: ([ObjectACLEntry]) throws(StorageError) -> [ObjectACLEntry]
    ) throws(StorageError) -> ObjectMetadata {
        try changing { () throws(StorageError) in
            var object = try metadata(bucket, name)
            let entries = try change(object.acl ?? [])
            guard entries.count <= ObjectACLEntry.maxEntries else {
                throw StorageError(
                    .invalidMetadata,
                    "An object's ACL holds at most \(ObjectACLEntry.maxEntries) entries."
                )
            }
            object.acl = entries
            object.metageneration += 1
            object.updated = clock()
            try catalog.commit(object, replacing: nil)
            return object
        }
    }
}
