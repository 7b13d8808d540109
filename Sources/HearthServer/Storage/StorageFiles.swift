import Foundation
import HearthFunctions
import HearthStorage
import Logging

/// The files server-side functions remove (`CallableFiles`, `FileDeletion`): objects of the
/// default bucket, deleted as the server (no rules), on the storage queue. The callables' calls
/// are best effort (failures logged: the deletion queued with their commit is retried by
/// `FileDeletionWorker`); `carryOut` throws, for the worker.
struct StorageFiles: CallableFiles {
    let objects: ObjectStore
    let bucket: String
    let logger: Logger

    func deleteObject(downloadURL: String, under prefix: String) async {
        await bestEffort(.object(downloadURL: downloadURL, under: prefix))
    }

    func deleteFolder(_ prefix: String) async {
        await bestEffort(.folder(prefix))
    }

    private func bestEffort(_ deletion: FileDeletion) async {
        do {
            try await carryOut(deletion)
        } catch {
            logger.error(
                "a file the chat app removes could not be deleted yet",
                metadata: ["hearth.file": "\(deletion)", "hearth.error": "\(error)"]
            )
        }
    }

    /// Deletes what `deletion` names; an object already gone is no error, and neither is a URL
    /// of another bucket, host or folder (nothing of ours to delete).
    /// - Throws: the storage's error when an object could not be listed or deleted (the
    ///   deletion is to be tried again; what was deleted stays deleted).
    func carryOut(_ deletion: FileDeletion) async throws {
        switch deletion {
        case .object(let url, let prefix):
            guard let (bucketName, name) = Self.object(url), bucketName == bucket, name.hasPrefix(prefix) else {
                return
            }
            try await delete([name])
        case .folder(let prefix):
            try await delete(try await names(under: prefix))
        }
    }

    /// Every object name under `prefix`, page by page. In a cluster the catalog first catches
    /// up with the cluster's (an upload through another node just before is listed too).
    private func names(under prefix: String) async throws -> [String] {
        guard let bucketName = try? BucketName(bucket) else { return [] }
        try await StorageEndpoint.run { [objects] in try objects.synchronize() }
        var names: [String] = []
        var pageToken: String?
        repeat {
            let page = try await StorageEndpoint.run { [objects, pageToken] in
                try objects.list(bucketName, prefix: prefix, delimiter: nil, pageToken: pageToken, limit: 1000)
            }
            names += page.items.map(\.name)
            pageToken = page.nextPageToken
        } while pageToken != nil
        return names
    }

    /// Deletes every one of `names`, going on past a failure; throws the first one.
    private func delete(_ names: [String]) async throws {
        guard let bucketName = try? BucketName(bucket) else { return }
        var failure: (any Error)?
        for name in names {
            guard let objectName = try? ObjectName(name) else { continue }
            do {
                try await StorageEndpoint.run { [objects] in try objects.delete(bucketName, objectName) }
            } catch let error as StorageError where error.code == .notFound {
                continue
            } catch {
                failure = failure ?? error
            }
        }
        if let failure { throw failure }
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
