import Foundation
import HearthStorage
import HearthTestSupport
import Testing

/// Metadata updates as Firebase applies them: absent fields unchanged, `null` removes, custom
/// metadata merged key by key, the tokens key replacing the download tokens; metageneration
/// counts and `updated` moves.
@Suite struct MetadataPatchTests {
    static func patch(_ json: String) throws -> MetadataPatch {
        try MetadataPatch(json: JSONSerialization.jsonObject(with: Data(json.utf8)) as! [String: Any])
    }

    @Test func fieldsAndCustomMetadataMergeAndTokensAreReplaced() throws {
        let directory = try TemporaryDirectory(prefix: "hearth-patch")
        defer { directory.remove() }
        let time = ManualClock(milliseconds: 1_000)
        let store = try ObjectStore(dataDirectory: directory.path) { time.now }
        defer { store.close() }
        let bucket = try BucketName("p.appspot.com")
        let name = try ObjectName("a.txt")
        let upload = try store.beginUpload()
        try upload.append(Array("x".utf8))
        let original = try store.finish(
            upload,
            as: name,
            in: bucket,
            fields: ObjectFields(
                contentType: "text/plain",
                metadata: ["keep": "1", "drop": "2"],
                cacheControl: "no-cache"
            )
        )
        time.set(2_000)
        let updated = try store.update(
            bucket,
            name,
            with: Self.patch(
                #"{"cacheControl":null,"contentLanguage":"fr","metadata":{"drop":null,"new":"3","firebaseStorageDownloadTokens":"t1,t2"}}"#
            )
        )
        #expect(updated.contentType == "text/plain", "absent: unchanged")
        #expect(updated.cacheControl == nil, "null: removed")
        #expect(updated.contentLanguage == "fr")
        #expect(updated.metadata == ["keep": "1", "new": "3"])
        #expect(updated.downloadTokens == ["t1", "t2"])
        #expect(updated.downloadTokens != original.downloadTokens, "the old download URL no longer reads it")
        #expect(updated.metageneration == 2 && updated.updated == 2_000 && updated.timeCreated == 1_000)
        #expect(updated.generation == original.generation)
        #expect(try store.metadata(bucket, name) == updated)

        let cleared = try store.update(bucket, name, with: Self.patch(#"{"metadata":null}"#))
        #expect(cleared.metadata.isEmpty && cleared.metageneration == 3)
        #expect(throws: StorageError.self) { _ = try Self.patch(#"{"contentType":["x"]}"#) }
        #expect(throws: StorageError.self) {
            _ = try store.update(bucket, ObjectName("missing"), with: MetadataPatch())
        }
    }
}
