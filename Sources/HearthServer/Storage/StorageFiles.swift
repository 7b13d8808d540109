import Foundation
import HearthFunctions
import HearthStorage
import Logging

/// The files server-side functions remove (`CallableFiles`): objects of the default bucket,
/// deleted as the server (no rules), on the storage queue; failures are logged.
struct StorageFiles: CallableFiles {
    let objects: ObjectStore
    let bucket: String
    let logger: Logger

    func deleteObject(downloadURL: String, under prefix: String) async {
        guard let (bucketName, name) = Self.object(downloadURL), bucketName == bucket, name.hasPrefix(prefix) else {
            return
        }
        await delete([name])
    }

    func deleteFolder(_ prefix: String) async {
        guard let bucketName = try? BucketName(bucket) else { return }
        var names: [String] = []
        var pageToken: String?
        repeat {
            guard
                let page = try? await StorageEndpoint.run({ [objects, pageToken] in
                    try objects.list(bucketName, prefix: prefix, delimiter: nil, pageToken: pageToken, limit: 1000)
                })
            else { break }
            names += page.items.map(\.name)
            pageToken = page.nextPageToken
        } while pageToken != nil
        await delete(names)
    }

    private func delete(_ names: [String]) async {
        guard let bucketName = try? BucketName(bucket) else { return }
        for name in names {
            do {
                let objectName = try ObjectName(name)
                try await StorageEndpoint.run { [objects] in try objects.delete(bucketName, objectName) }
            } catch let error as StorageError where error.code == .notFound {
                continue
            } catch {
                logger.error(
                    "a file the chat app removes could not be deleted",
                    metadata: ["hearth.file": "\(name)", "hearth.error": "\(error)"]
                )
            }
        }
    }

    /// The bucket and object name of a download URL, `…/v0/b/{bucket}/o/{name}?…`.
    static func object(_ url: String) -> (bucket: String, name: String)? {
        guard let components = URLComponents(string: url) else { return nil }
        let parts = components.percentEncodedPath.split(separator: "/", omittingEmptySubsequences: false)
        // "", "v0", "b", bucket, "o", name
        guard parts.count == 6, parts[1] == "v0", parts[2] == "b", parts[4] == "o",
            let bucket = parts[3].removingPercentEncoding, let name = parts[5].removingPercentEncoding
        else { return nil }
        return (bucket, name)
    }
}
