import Dispatch
import HTTPTypes
import HearthStorage
import Hummingbird
import Logging
import NIOCore

/// Firebase Storage's client API (`/v0/b/{bucket}/o…`): media uploads (`POST ?name=`), metadata,
/// downloads (`?alt=media`, `Range`), deletes and listings. Until storage rules exist only the
/// admin may do any of it, as the contract says of a server without a rules file; a download
/// with one of the object's tokens (`?alt=media&token=`) needs no credential.
///
/// The disk is read and written on `queue`, never on an event loop.
struct StorageEndpoint: Sendable {
    let objects: ObjectStore
    let credentials: CredentialResolver
    let logger: Logger
    static let queue = DispatchQueue(label: "hearth.storage", qos: .userInitiated, attributes: .concurrent)

    func respond(to request: Request, route: StorageRoute) async -> Response {
        let parameters = route.parameters
        do {
            let bucket = try BucketName(route.bucket)
            let isAdmin = credentials.isAdmin(request, query: nil)
            guard let nameText = route.name else {
                guard isAdmin else { return StorageAnswer.forbidden }
                switch request.method {
                case .post: return try await upload(request, to: bucket, name: parameters["name"])
                case .get: return try await list(bucket, parameters)
                default:
                    return StorageAnswer.error(405, "Use GET to list a bucket's objects, POST ?name= to upload one.")
                }
            }
            let name = try ObjectName(nameText)
            switch request.method {
            case .get, .head:
                let object = try await Self.run { try objects.metadata(bucket, name) }
                if parameters["alt"] == "media" {
                    let token = parameters["token"]
                    guard isAdmin || (token.map { object.downloadTokens.contains($0) } ?? false) else {
                        return StorageAnswer.forbidden
                    }
                    return StorageDownload(object: object, path: objects.path(of: object)).response(to: request)
                }
                guard isAdmin else { return StorageAnswer.forbidden }
                return StorageAnswer.json(object.firebaseResource.json())
            case .post:
                guard isAdmin else { return StorageAnswer.forbidden }
                return try await upload(request, to: bucket, name: nameText)
            case .delete:
                guard isAdmin else { return StorageAnswer.forbidden }
                try await Self.run { try objects.delete(bucket, name) }
                return Response(status: .noContent)
            default:
                return StorageAnswer.error(405, "Use GET, POST or DELETE on an object.")
            }
        } catch let error as StorageError {
            return StorageAnswer.error(error)
        } catch {
            logger.error("storage request failed", metadata: ["hearth.error": "\(error)"])
            return StorageAnswer.error(500, "The server failed to serve the file; try again.")
        }
    }

    /// A media upload: the body is the object's bytes, its `Content-Type` the object's.
    private func upload(_ request: Request, to bucket: BucketName, name: String?) async throws -> Response {
        guard let name else {
            return StorageAnswer.error(400, "Name the object to upload: POST /v0/b/{bucket}/o?name={path}.")
        }
        let objectName = try ObjectName(name)
        if let length = request.headers[.contentLength].flatMap(UInt64.init), length > objects.maxObjectSize {
            throw StorageError(
                .tooLarge,
                "The object is larger than the \(objects.maxObjectSize) bytes this server accepts."
            )
        }
        let upload = try await Self.run { try objects.beginUpload() }
        do {
            for try await buffer in request.body {
                try await Self.run {
                    try buffer.withUnsafeReadableBytes { bytes throws(StorageError) in try upload.append(bytes) }
                }
            }
        } catch {
            upload.cancel()
            throw error
        }
        let contentType = request.headers[.contentType]
        let object = try await Self.run {
            try objects.finish(upload, as: objectName, in: bucket, contentType: contentType)
        }
        return StorageAnswer.json(object.firebaseResource.json())
    }

    private func list(_ bucket: BucketName, _ parameters: [String: String]) async throws -> Response {
        let limit = parameters["maxResults"].flatMap(Int.init) ?? 1000
        let listing = try await Self.run {
            try objects.list(
                bucket,
                prefix: parameters["prefix"] ?? "",
                delimiter: parameters["delimiter"],
                pageToken: parameters["pageToken"],
                limit: limit
            )
        }
        return StorageAnswer.json(StorageListingJSON(listing, bucket: bucket).json())
    }

    /// Runs `body` on the storage queue.
    static func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Result { try body() }) }
        }
    }
}
