import Foundation
import HTTPTypes
import HearthStorage
import Hummingbird
import NIOCore

/// Resumable uploads of Cloud Storage's JSON API, as google-cloud-storage sends files past its
/// multipart size: `POST …?uploadType=resumable` (the metadata as JSON; `X-Upload-Content-Type`,
/// `X-Upload-Content-Length`) answers the session URL in `Location`; then `PUT <Location>` with
/// `Content-Range: bytes A-B/TOTAL` chunks (`bytes */TOTAL` asks where it stands). A chunk
/// that does not end the object is answered 308 with `Range: bytes=0-N`; the last one 200 with
/// the object. The same sessions as the client API's (`ObjectStore.startResumable`).
extension StorageEndpoint {
    static let uploadContentLength = HTTPField.Name("X-Upload-Content-Length")!

    func startGCSResumable(
        _ request: Request,
        in bucket: BucketName,
        name: String?,
        base: String,
        acl: UploadACL
    ) async throws
        -> Response
    {
        let (session, checked) = try await openSession(
            request,
            in: bucket,
            name: name,
            type: Self.uploadContentType,
            length: Self.uploadContentLength,
            judge: access.judge(.admin),
            acl: acl
        )
        let encodedBucket = ObjectMetadata.percentEncoded(bucket.value)
        let encodedName = ObjectMetadata.percentEncoded(checked.value)
        var response = Response(status: .ok)
        response.headers[.location] =
            "\(base)/upload/storage/v1/b/\(encodedBucket)/o?uploadType=resumable&name=\(encodedName)&upload_id=\(session.id)"
        return response
    }

    func continueGCSResumable(_ request: Request, id: String, base: String) async throws -> Response {
        let range = request.headers[.contentRange].map(Self.contentRange) ?? .some((nil, nil))
        guard let (start, total) = range else {
            throw StorageError(
                .invalidOffset,
                "Content-Range must be 'bytes A-B/TOTAL', 'bytes A-B/*' or 'bytes */TOTAL'."
            )
        }
        var received = try await Self.run { try objects.resumable(id) }.received
        if let start {
            received = try await appendBody(of: request, to: id, at: start)
        } else if request.headers[.contentRange] == nil {
            // No Content-Range: the body is the whole object.
            received = try await appendBody(of: request, to: id, at: 0)
            let object = try await Self.run { try objects.finalizeResumable(id) }
            return StorageAnswer.json(object.gcsResource(base: base).storageJSON())
        }
        if let total, received == total {
            let object = try await Self.run { try objects.finalizeResumable(id) }
            return StorageAnswer.json(object.gcsResource(base: base).storageJSON())
        }
        var response = Response(status: HTTPResponse.Status(code: 308, reasonPhrase: "Resume Incomplete"))
        if received > 0 { response.headers[.range] = "bytes=0-\(received - 1)" }
        return response
    }

    /// `bytes A-B/TOTAL`, `bytes A-B/*` or `bytes */TOTAL` → (A, TOTAL); nil when malformed.
    static func contentRange(_ header: String) -> (start: UInt64?, total: UInt64?)? {
        guard header.hasPrefix("bytes ") else { return nil }
        let parts = header.dropFirst("bytes ".count).split(separator: "/", maxSplits: 1)
        guard parts.count == 2 else { return nil }
        let total = parts[1] == "*" ? nil : UInt64(parts[1])
        if parts[1] != "*", total == nil { return nil }
        if parts[0] == "*" { return (nil, total) }
        let bounds = parts[0].split(separator: "-", maxSplits: 1)
        guard bounds.count == 2, let start = UInt64(bounds[0]), let end = UInt64(bounds[1]), end >= start else {
            return nil
        }
        return (start, total)
    }
}
