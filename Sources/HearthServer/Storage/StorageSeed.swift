import Foundation
import HearthStorage
import Logging

/// The seed's files (`seed/files.json` beside `seed/fireside.json`): at start, when the default
/// bucket holds no object, each file it lists is uploaded there under its name with its type and
/// download token (so the seed's `photoUrl`s, download URLs on the default address, work):
///
///     {"bucket": "hearth.appspot.com",
///      "objects": [{"name": "users/u1/avatar.png", "file": "files/users/u1/avatar.png",
///                   "contentType": "image/png", "downloadToken": "…"}]}
///
/// `file` is relative to the manifest. A manifest that cannot be read stops the server, naming
/// what is wrong, as a broken seed file does.
enum StorageSeed {
    struct Manifest: Decodable {
        struct Entry: Decodable {
            let name: String
            let file: String
            let contentType: String?
            let downloadToken: String?
        }
        let objects: [Entry]
    }

    /// Uploads the manifest's files into `bucket` when it is empty; returns how many.
    static func importIfEmpty(_ objects: ObjectStore, manifest path: String, bucket: String) throws -> Int {
        guard FileManager.default.fileExists(atPath: path) else { return 0 }
        let bucketName = try BucketName(bucket)
        guard try objects.list(bucketName, prefix: "", delimiter: nil, pageToken: nil, limit: 1).items.isEmpty else {
            return 0
        }
        let manifest: Manifest
        do {
            manifest = try JSONDecoder().decode(Manifest.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
        } catch {
            throw HearthServerError("The seed's files manifest '\(path)' is not valid: \(error)")
        }
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent()
        for entry in manifest.objects {
            let bytes: [UInt8]
            do {
                bytes = Array(try Data(contentsOf: directory.appendingPathComponent(entry.file)))
            } catch {
                throw HearthServerError(
                    "The seed's file '\(entry.file)' (for '\(entry.name)') cannot be read: \(error)"
                )
            }
            let upload = try objects.beginUpload()
            do {
                try upload.append(bytes)
            } catch {
                upload.cancel()
                throw error
            }
            let name = try ObjectName(entry.name)
            _ = try objects.finish(
                upload,
                as: name,
                in: bucketName,
                fields: ObjectFields(contentType: entry.contentType)
            )
            if let token = entry.downloadToken {
                let patch = try MetadataPatch(json: ["metadata": [MetadataPatch.tokensKey: token]])
                _ = try objects.update(bucketName, name, with: patch)
            }
        }
        return manifest.objects.count
    }
}
