import Foundation
import HTTPTypes
import HearthStorage
import Hummingbird
import NIOCore

/// What an upload does with Cloud Storage's access-control lists: the client API ignores them (as
/// Firebase's does); the JSON API keeps the metadata's `acl`, or the list its `predefinedAcl`
/// names.
enum UploadACL: Sendable {
    case ignored
    case fromMetadata
    case predefined([ObjectACLEntry])

    /// The JSON API's choice for a request with these query `parameters` (`predefinedAcl`, or
    /// `destinationPredefinedAcl` for a copy).
    static func gcs(_ parameters: [String: String], key: String = "predefinedAcl") throws(StorageError) -> UploadACL {
        guard let name = parameters[key] else { return .fromMetadata }
        return .predefined(try ObjectACLEntry.predefined(name))
    }

    func apply(to fields: inout ObjectFields) {
        switch self {
        case .ignored: fields.acl = nil
        case .fromMetadata: break
        case .predefined(let entries): fields.acl = entries
        }
    }
}

/// An object's ACL on the JSON API (admin only): `GET …/o/{name}/acl` (the list, what
/// google-cloud-storage's `blob.acl.reload()` reads before `make_public`), `POST …/acl` with
/// `{entity, role}` (add or change one entry: Node's `file.acl.add`, `makePublic`),
/// `GET|PUT|PATCH|DELETE …/acl/{entity}`. Hearth keeps the list and gives it back; it grants
/// nothing by it (`ObjectACLEntry`).
extension StorageEndpoint {
    func aclAnswer(
        _ request: Request,
        bucket: BucketName,
        name: String,
        entity: String?,
        base: String
    ) async throws -> Response {
        let objectName = try ObjectName(name)
        switch (entity, request.method) {
        case (nil, .get):
            let object = try await Self.run { try objects.metadata(bucket, objectName) }
            return StorageAnswer.json(GCSObjectAccessControls(object, base: base).storageJSON())
        case (nil, .post):
            let body = try await Self.aclBody(request)
            guard let entity = body["entity"] as? String, let role = body["role"] as? String else {
                throw StorageError(.invalidMetadata, "An ACL entry is a JSON object with an 'entity' and a 'role'.")
            }
            return try await setEntry(ObjectACLEntry(entity: entity, role: role), bucket, objectName, base: base)
        case (let entity?, .get):
            let object = try await Self.run { try objects.metadata(bucket, objectName) }
            guard let entry = (object.acl ?? []).first(where: { $0.entity == entity }) else {
                throw Self.noEntry(entity, bucket, objectName)
            }
            return StorageAnswer.json(object.gcsACLEntry(entry, base: base).storageJSON())
        case (let entity?, .put), (let entity?, .patch):
            let body = try await Self.aclBody(request)
            guard let role = body["role"] as? String else {
                throw StorageError(.invalidMetadata, "An ACL entry's update is a JSON object with a 'role'.")
            }
            return try await setEntry(ObjectACLEntry(entity: entity, role: role), bucket, objectName, base: base)
        case (let entity?, .delete):
            _ = try await Self.run {
                try objects.changeACL(bucket, objectName) { entries throws(StorageError) in
                    guard entries.contains(where: { $0.entity == entity }) else {
                        throw Self.noEntry(entity, bucket, objectName)
                    }
                    return entries.filter { $0.entity != entity }
                }
            }
            return Response(status: .noContent)
        default:
            return StorageAnswer.error(
                405,
                "Use GET or POST on an object's ACL, GET, PUT, PATCH or DELETE on an entry."
            )
        }
    }

    /// Adds `entry`, or changes the role of its entity; answers the entry.
    private func setEntry(
        _ entry: ObjectACLEntry,
        _ bucket: BucketName,
        _ name: ObjectName,
        base: String
    ) async throws -> Response {
        let object = try await Self.run {
            try objects.changeACL(bucket, name) { entries in
                entries.filter { $0.entity != entry.entity } + [entry]
            }
        }
        return StorageAnswer.json(object.gcsACLEntry(entry, base: base).storageJSON())
    }

    private static func noEntry(_ entity: String, _ bucket: BucketName, _ name: ObjectName) -> StorageError {
        StorageError(.notFound, "The object \(bucket.value)/\(name.value) has no ACL entry for '\(entity.prefix(80))'.")
    }

    /// An ACL request's body: a JSON object, at most 64 KiB.
    private static func aclBody(_ request: Request) async throws -> [String: Any] {
        let body = try await metadataBody(request)
        guard let json = try? JSONSerialization.jsonObject(with: Data(buffer: body)) as? [String: Any] else {
            throw StorageError(.invalidMetadata, "An ACL entry is a JSON object with an 'entity' and a 'role'.")
        }
        return json
    }
}
