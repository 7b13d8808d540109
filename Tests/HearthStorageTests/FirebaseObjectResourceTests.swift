import Foundation
import HearthStorage
import Testing

/// The client API's metadata JSON: the field shapes the Firebase SDKs parse (research/storage.md
/// §3: sizes and generations as strings, millisecond UTC times, defaults for content type and
/// encoding, custom metadata only when present, tokens comma-separated).
@Suite struct FirebaseObjectResourceTests {
    static let object: ObjectMetadata = {
        var object = ObjectMetadata(
            bucket: "app.appspot.com",
            name: "users/u1/a b.jpg",
            generation: "1700000000123456",
            size: 5,
            md5Hash: "XUFAKrxLKna5cZ2REBfFkg==",
            crc32c: "mnG7TA==",
            contentType: nil,
            time: 1_700_000_000_123.9,
            downloadTokens: ["t1", "t2"]
        )
        object.metageneration = 2
        return object
    }()

    @Test func fieldsAreShapedAsFirebaseGivesThem() throws {
        let resource = Self.object.firebaseResource
        #expect(resource.size == "5")
        #expect(resource.generation == "1700000000123456")
        #expect(resource.metageneration == "2")
        #expect(resource.timeCreated == "2023-11-14T22:13:20.123Z")
        #expect(resource.updated == resource.timeCreated)
        #expect(resource.contentType == "application/octet-stream")
        #expect(resource.contentEncoding == "identity")
        #expect(resource.storageClass == "STANDARD")
        #expect(resource.downloadTokens == "t1,t2")
        #expect(resource.metadata == nil)
        let json = try JSONSerialization.jsonObject(with: Data(resource.storageJSON())) as? [String: Any]
        #expect(json?["metadata"] == nil, "no custom metadata: the key is absent")
        #expect(json?["contentDisposition"] == nil)
        #expect(json?["name"] as? String == "users/u1/a b.jpg")
    }

    @Test func customMetadataAndSetFieldsAppear() throws {
        var object = Self.object
        object.metadata = ["chatId": "c1"]
        object.contentType = "image/jpeg"
        object.cacheControl = "public, max-age=60"
        let json = try JSONSerialization.jsonObject(with: Data(object.firebaseResource.storageJSON())) as? [String: Any]
        #expect(json?["metadata"] as? [String: String] == ["chatId": "c1"])
        #expect(json?["contentType"] as? String == "image/jpeg")
        #expect(json?["cacheControl"] as? String == "public, max-age=60")
    }
}
