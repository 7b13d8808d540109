import Foundation
import HTTPTypes
import HearthStorage
import Hummingbird
import NIOCore

/// Resumable uploads (`X-Goog-Upload-Protocol: resumable`), as the SDKs' `uploadBytesResumable`
/// drives them: `start` answers the session URL, then `upload` (with `X-Goog-Upload-Offset`,
/// `upload, finalize` for the last chunk), `query`, `finalize` and `cancel` on that URL. Every
/// answer says `X-Goog-Upload-Status` (the SDK fails without it).
extension StorageEndpoint {
    static let uploadCommand = HTTPField.Name("X-Goog-Upload-Command")!
    static let uploadStatus = HTTPField.Name("X-Goog-Upload-Status")!
    static let uploadURL = HTTPField.Name("X-Goog-Upload-URL")!
    static let uploadOffset = HTTPField.Name("X-Goog-Upload-Offset")!
    static let sizeReceived = HTTPField.Name("X-Goog-Upload-Size-Received")!
    static let chunkGranularity = HTTPField.Name("X-Goog-Upload-Chunk-Granularity")!
    static let announcedLength = HTTPField.Name("X-Goog-Upload-Header-Content-Length")!
    static let announcedType = HTTPField.Name("X-Goog-Upload-Header-Content-Type")!

    /// `start`: the body is the object's metadata (JSON, may be empty).
    func startResumable(
        _ request: Request,
        in bucket: BucketName,
        name: String?,
        judge: StorageJudge
    ) async throws
        -> Response
    {
        guard request.headers[Self.uploadCommand]?.lowercased() == "start" else {
            return StorageAnswer.error(400, "Start a resumable upload with X-Goog-Upload-Command: start.")
        }
        let (session, checked) = try await openSession(
            request,
            in: bucket,
            name: name,
            type: Self.announcedType,
            length: Self.announcedLength,
            judge: judge
        )
        let host = request.head.authority ?? "127.0.0.1"
        let encodedBucket = ObjectMetadata.percentEncoded(bucket.value)
        let encodedName = ObjectMetadata.percentEncoded(checked.value)
        var response = StorageAnswer.json(Array("{}".utf8))
        response.headers[Self.uploadStatus] = "active"
        response.headers[Self.uploadURL] =
            "\(scheme)://\(host)/v0/b/\(encodedBucket)/o?name=\(encodedName)&upload_id=\(session.id)&upload_protocol=resumable"
        response.headers[Self.chunkGranularity] = "262144"
        return response
    }

    /// Starts a resumable session from a start request: the body is the metadata (JSON, may be
    /// empty), the object's type and length in the `type` and `length` headers when the metadata
    /// has no type.
    func openSession(
        _ request: Request,
        in bucket: BucketName,
        name: String?,
        type: HTTPField.Name,
        length: HTTPField.Name,
        judge: StorageJudge,
        acl: UploadACL = .ignored
    ) async throws -> (ResumableSession, ObjectName) {
        let body = try await Self.metadataBody(request)
        var (partName, fields) = (String?.none, ObjectFields())
        if body.readableBytes > 0 { (partName, fields) = try Self.uploadMetadata(Array(body.readableBytesView)) }
        if fields.contentType == nil { fields.contentType = request.headers[type] }
        guard let objectName = name ?? partName else {
            throw StorageError(.invalidName, "Name the object to upload: ?name={path}, or a name in its metadata.")
        }
        let checked = try ObjectName(objectName)
        let expected = request.headers[length].flatMap(UInt64.init)
        try await admitBeforeBytes(judge, bucket: bucket, name: checked.value, fields: fields, sizes: [expected ?? 0])
        acl.apply(to: &fields)
        let chosen = fields
        let session = try await Self.run {
            try objects.startResumable(
                bucket,
                checked,
                fields: chosen,
                expectedSize: expected,
                startedByAdmin: judge.isAdmin
            )
        }
        return (session, checked)
    }

    /// Appends the request's body to session `id`, which has received `offset` bytes; returns
    /// what it has received after.
    func appendBody(of request: Request, to id: String, at offset: UInt64) async throws -> UInt64 {
        let chunk = try await Self.run { try objects.continueResumable(id, at: offset) }
        defer { chunk.close() }
        try await UploadBodyWriter.write(request) { pieces throws(StorageError) in
            try chunk.append(pieces: pieces)
        }
        return chunk.received
    }

    /// `upload`, `upload, finalize`, `finalize`, `query` and `cancel` on a session URL.
    func continueResumable(_ request: Request, id: String, judge: StorageJudge) async throws -> Response {
        let commands = Set(
            (request.headers[Self.uploadCommand] ?? "").lowercased().split(separator: ",").map {
                $0.trimmingCharacters(in: .whitespaces)
            }
        )
        do {
            if commands.contains("query") {
                let (session, received) = try await Self.run { try objects.resumable(id) }
                return Self.status(session.status.rawValue, received: received)
            }
            if commands.contains("cancel") {
                try await Self.run { try objects.cancelResumable(id) }
                return Self.status("cancelled", received: nil)
            }
            var received: UInt64?
            if commands.contains("upload") {
                guard let offset = request.headers[Self.uploadOffset].flatMap(UInt64.init) else {
                    return Self.status("active", received: nil, error: (400, "A chunk needs its X-Goog-Upload-Offset."))
                }
                received = try await appendBody(of: request, to: id, at: offset)
            }
            if commands.contains("finalize") {
                // Without a credential, a session the admin started finishes as the admin's.
                var finalizer = judge
                if request.headers[.authorization] == nil,
                    try await Self.run({ try objects.resumable(id) }).session.startedByAdmin
                {
                    finalizer = access.judge(.admin)
                }
                let object = try await access.run(finalizer) { [finalizer] database in
                    try objects.finalizeResumable(id, admit: finalizer.admission(database: database))
                }
                var response = StorageAnswer.json(object.firebaseResource.storageJSON())
                response.headers[Self.uploadStatus] = "final"
                return response
            }
            guard commands.contains("upload") else {
                return Self.status(
                    "active",
                    received: nil,
                    error: (400, "Unknown X-Goog-Upload-Command; use upload, finalize, query or cancel.")
                )
            }
            return Self.status("active", received: received)
        } catch let error as StorageError {
            var response = answer(error)
            response.headers[Self.uploadStatus] = error.code == .notFound ? "final" : "active"
            return response
        }
    }

    private static func status(_ status: String, received: UInt64?, error: (Int, String)? = nil) -> Response {
        var response = error.map { StorageAnswer.error($0.0, $0.1) } ?? Response(status: .ok)
        response.headers[uploadStatus] = status
        if let received { response.headers[sizeReceived] = String(received) }
        return response
    }
}
