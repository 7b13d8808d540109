import HTTPTypes
import HearthStorage
import Hummingbird

/// What Firebase Storage's client API takes beyond the SDKs' plain requests, as the emulator's
/// conformance tests exercise it: `X-HTTP-Method-Override`, `PUT` for `POST`, and the download
/// token commands (`POST ?create_token=true`, `POST ?delete_token=T`).
extension StorageEndpoint {
    static let methodOverride = HTTPField.Name("X-HTTP-Method-Override")!

    /// The method a client API request means. A `POST` or `PUT` with `X-HTTP-Method-Override`
    /// means the method it names (`PATCH`: a metadata update, `DELETE`, `GET`); a plain `PUT`, or
    /// one overridden to `PUT`, means `POST` (an upload, or a token command), as the emulator
    /// serves it. The session URL of a resumable upload is answered before this is asked.
    static func intendedMethod(of request: Request) -> HTTPRequest.Method {
        guard request.method == .post || request.method == .put else { return request.method }
        guard let named = request.headers[methodOverride], let method = HTTPRequest.Method(named.uppercased()),
            method != .put
        else { return .post }
        return method
    }

    /// `create_token=true` adds a download token to the object, `delete_token=T` removes one
    /// (the last one removed, a new one is made); answers the object's metadata. Admin only.
    func changeTokens(
        of name: ObjectName,
        in bucket: BucketName,
        _ parameters: [String: String]
    ) async throws -> Response {
        let object: ObjectMetadata
        if let create = parameters["create_token"] {
            guard create == "true" else {
                return StorageAnswer.error(
                    400,
                    "create_token takes only 'true'; to remove a token use delete_token=TOKEN."
                )
            }
            object = try await Self.run { try objects.addDownloadToken(bucket, name) }
        } else {
            let token = parameters["delete_token"] ?? ""
            object = try await Self.run { try objects.removeDownloadToken(token, from: bucket, name) }
        }
        return StorageAnswer.json(object.firebaseResource.storageJSON())
    }
}
