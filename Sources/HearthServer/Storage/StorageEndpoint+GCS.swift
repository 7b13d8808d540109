import Foundation
import HTTPTypes
import HearthStorage
import Hummingbird
import NIOCore

/// Cloud Storage's JSON API for the admin SDKs (firebase-admin, google-cloud-storage with
/// `STORAGE_EMULATOR_HOST`): the admin credential only (the admin secret, or `owner` under
/// `--emulator`), whatever rules say.
extension StorageEndpoint {
    func respond(to request: Request, gcs route: GCSRoute, channel: any Channel) async -> Response {
        var response: Response
        if let refused = await caughtUp() {
            response = refused
        } else {
            response = await answer(request, gcs: route, channel: channel)
        }
        cors.decorate(&response, exposing: Self.exposedHeaders)
        return response
    }

    private func answer(_ request: Request, gcs route: GCSRoute, channel: any Channel) async -> Response {
        let parameters = route.parameters
        do {
            if let refusal = route.refusal { return StorageAnswer.error(400, refusal) }
            guard let caller = credential(request) else {
                return StorageAnswer.error(401, "The Authorization header is not a valid credential.")
            }
            guard caller == .admin else {
                return StorageAnswer.error(
                    403,
                    "Cloud Storage's JSON API takes the admin credential only ('Bearer <admin secret>')."
                )
            }
            let base = "\(scheme)://\(request.head.authority ?? "127.0.0.1")"
            if route.kind == .bucket { return try await bucketAnswer(request, route.bucket, base: base) }
            let bucket = try BucketName(route.bucket)
            // The `full` projection carries the ACL; a PATCH answers in it unless told otherwise.
            let full =
                parameters["projection"] == "full"
                || (request.method == .patch && parameters["projection"] == nil)
            if let entity = route.acl, let name = route.name {
                return try await aclAnswer(request, bucket: bucket, name: name, entity: entity, base: base)
            }
            switch (route.kind, route.name, request.method) {
            case (.upload, nil, .post):
                switch parameters["uploadType"] ?? "media" {
                case "media", "multipart":
                    let object = try await store(
                        request,
                        in: bucket,
                        name: parameters["name"],
                        multipart: parameters["uploadType"] == "multipart",
                        judge: access.judge(caller),
                        acl: try UploadACL.gcs(parameters)
                    )
                    return StorageAnswer.json(object.gcsResource(base: base, full: full).storageJSON())
                case "resumable":
                    return try await startGCSResumable(
                        request,
                        in: bucket,
                        name: parameters["name"],
                        base: base,
                        acl: try UploadACL.gcs(parameters)
                    )
                default:
                    return StorageAnswer.error(400, "uploadType must be media, multipart or resumable.")
                }
            case (.upload, nil, .put),
                (.upload, nil, .post) where parameters["upload_id"] != nil:
                guard let id = parameters["upload_id"] else {
                    return StorageAnswer.error(400, "A resumable upload's PUT goes to its session URL (upload_id=).")
                }
                return try await continueGCSResumable(request, id: id, base: base)
            case (.json, let name?, .post) where route.copy != nil:
                return try await copyAnswer(
                    request,
                    from: bucket,
                    name,
                    to: route.copy!,
                    acl: try UploadACL.gcs(parameters, key: "destinationPredefinedAcl"),
                    base: base,
                    full: full
                )
            case (.json, nil, .get):
                let listing = try await listing(bucket, parameters)
                return StorageAnswer.json(GCSObjectList(listing, base: base, full: full).storageJSON())
            case (.json, let name?, .get), (.download, let name?, .get), (.json, let name?, .head),
                (.download, let name?, .head):
                let objectName = try ObjectName(name)
                let object = try await Self.run { try objects.metadata(bucket, objectName) }
                if route.kind == .download || parameters["alt"] == "media" {
                    return try await download(object, on: channel).response(to: request)
                }
                return StorageAnswer.json(object.gcsResource(base: base, full: full).storageJSON())
            case (.json, let name?, .patch):
                let objectName = try ObjectName(name)
                var patch = try await Self.metadataPatch(request)
                // `predefinedAcl` wins over a body's `acl` (google-cloud-storage sends both, the list empty).
                if case .predefined(let entries) = try UploadACL.gcs(parameters) { patch.acl = .some(entries) }
                let object = try await Self.run { [patch] in try objects.update(bucket, objectName, with: patch) }
                return StorageAnswer.json(object.gcsResource(base: base, full: full).storageJSON())
            case (.json, let name?, .delete):
                let objectName = try ObjectName(name)
                try await Self.run { try objects.delete(bucket, objectName) }
                return Response(status: .noContent)
            default:
                return StorageAnswer.error(
                    501,
                    "Cloud Storage's JSON API request \(request.method) is not one this server serves."
                )
            }
        } catch let error as StorageError {
            return answer(error)
        } catch {
            logger.error("storage request failed", metadata: ["hearth.error": "\(error)"])
            return StorageAnswer.error(500, "The server failed to serve the file; try again.")
        }
    }

    /// `copyTo` / `rewriteTo`: the copy's resource, or for a rewrite the finished rewrite (one call
    /// always copies everything: a version's bytes are shared, not moved).
    private func copyAnswer(
        _ request: Request,
        from bucket: BucketName,
        _ name: String,
        to copy: GCSRoute.Copy,
        acl: UploadACL,
        base: String,
        full: Bool
    ) async throws -> Response {
        let source = try ObjectName(name)
        let destinationBucket = try BucketName(copy.bucket)
        let destination = try ObjectName(copy.name)
        var patch = try await Self.copyPatch(request)
        if case .predefined(let entries) = acl { patch.acl = .some(entries) }
        let object = try await Self.run { [patch] in
            try objects.copy(bucket, source, to: destinationBucket, destination, applying: patch)
        }
        guard copy.rewrite else { return StorageAnswer.json(object.gcsResource(base: base, full: full).storageJSON()) }
        return StorageAnswer.json(GCSRewriteResponse(object, base: base).storageJSON())
    }

    /// The fields a copy's body sets on the destination (none when the body is empty).
    private static func copyPatch(_ request: Request) async throws -> MetadataPatch {
        let body = try await metadataBody(request)
        guard body.readableBytes > 0 else { return MetadataPatch() }
        guard let json = try? JSONSerialization.jsonObject(with: Data(buffer: body)) as? [String: Any] else {
            throw StorageError(
                .invalidMetadata,
                "A copy's body is a JSON object of the destination's fields, or empty."
            )
        }
        return try MetadataPatch(json: json.filter { $0.key != "name" && $0.key != "bucket" })
    }
}
