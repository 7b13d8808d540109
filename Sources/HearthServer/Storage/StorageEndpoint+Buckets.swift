import HTTPTypes
import HearthStorage
import Hummingbird

/// Cloud Storage's bucket resources, as the admin SDKs ask for them (`bucket.exists()`,
/// `client.get_bucket`, `list_buckets`): any bucket name is its own space of objects, so every
/// bucket exists; the list holds the default bucket (`<project-id>.appspot.com`) and every
/// bucket with an object.
extension StorageEndpoint {
    struct BucketResource: Encodable {
        var kind = "storage#bucket"
        let id: String
        let name: String
        let selfLink: String
        var location = "US"
        var storageClass = "STANDARD"

        init(_ name: String, base: String) {
            id = name
            self.name = name
            selfLink = "\(base)/storage/v1/b/\(ObjectMetadata.percentEncoded(name))"
        }
    }

    struct BucketList: Encodable {
        var kind = "storage#buckets"
        let items: [BucketResource]
    }

    /// `GET /storage/v1/b` (`bucket` empty) or `GET /storage/v1/b/{bucket}`.
    func bucketAnswer(_ request: Request, _ bucket: String, base: String) async throws -> Response {
        guard request.method == .get else {
            return StorageAnswer.error(
                501,
                "Buckets are not created or changed here: any bucket name holds objects; GET lists them."
            )
        }
        guard bucket.isEmpty else {
            let checked = try BucketName(bucket)
            return StorageAnswer.json(BucketResource(checked.value, base: base).storageJSON())
        }
        let holding = try await Self.run { try objects.buckets() }.map(\.value)
        // The default bucket is listed even before it holds an object.
        let defaultBucket = access.defaultBucket
        let names = ([defaultBucket] + holding.filter { $0 != defaultBucket })
        return StorageAnswer.json(BucketList(items: names.map { BucketResource($0, base: base) }).storageJSON())
    }
}
