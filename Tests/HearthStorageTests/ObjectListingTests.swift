import HearthStorage
import HearthTestSupport
import Testing

/// Listings as Cloud Storage gives them: names in byte order under a prefix, "folders" rolled up
/// by the delimiter, pages that together list everything once.
@Suite struct ObjectListingTests {
    static let names = ["a/1", "a/2", "ab", "b/x/1", "b/x/2", "b/y", "c", "ca"]

    func withStore(_ body: (ObjectStore, BucketName) throws -> Void) throws {
        let directory = try TemporaryDirectory(prefix: "hearth-listing")
        defer { directory.remove() }
        let store = try ObjectStore(dataDirectory: directory.path)
        defer { store.close() }
        let bucket = try BucketName("list.appspot.com")
        for name in Self.names.reversed() {
            let upload = try store.beginUpload()
            try Array(name.utf8).withUnsafeBytes { try upload.append($0) }
            _ = try store.finish(upload, as: ObjectName(name), in: bucket, contentType: nil)
        }
        try body(store, bucket)
    }

    @Test func withoutADelimiterEveryNameUnderThePrefixInByteOrder() throws {
        try withStore { store, bucket throws in
            #expect(try store.list(bucket).items.map(\.name) == Self.names)
            #expect(try store.list(bucket, prefix: "b/").items.map(\.name) == ["b/x/1", "b/x/2", "b/y"])
            #expect(try store.list(bucket, prefix: "c").items.map(\.name) == ["c", "ca"])
            #expect(try store.list(bucket, prefix: "zzz").items.isEmpty)
        }
    }

    @Test func theDelimiterRollsFoldersUp() throws {
        try withStore { store, bucket throws in
            let top = try store.list(bucket, delimiter: "/")
            #expect(top.prefixes == ["a/", "b/"])
            #expect(top.items.map(\.name) == ["ab", "c", "ca"])
            #expect(top.nextPageToken == nil)
            let b = try store.list(bucket, prefix: "b/", delimiter: "/")
            #expect(b.prefixes == ["b/x/"])
            #expect(b.items.map(\.name) == ["b/y"])
        }
    }

    @Test(arguments: [1, 2, 3])
    func pagesListEverythingOnce(limit: Int) throws {
        try withStore { store, bucket throws in
            for delimiter in [nil, "/"] as [String?] {
                var seen: [String] = []
                var token: String?
                repeat {
                    let page = try store.list(bucket, delimiter: delimiter, pageToken: token, limit: limit)
                    #expect(page.items.count + page.prefixes.count <= limit)
                    seen += page.prefixes + page.items.map(\.name)
                    token = page.nextPageToken
                } while token != nil
                #expect(seen.sorted() == (delimiter == nil ? Self.names : ["a/", "ab", "b/", "c", "ca"]))
            }
        }
    }

    @Test func aPageTokenOfAnotherListingIsRefused() throws {
        try withStore { store, bucket throws in
            let token = try store.list(bucket, prefix: "b/", limit: 1).nextPageToken
            #expect(token != nil)
            #expect(throws: StorageError.self) { _ = try store.list(bucket, prefix: "a/", pageToken: token) }
            #expect(throws: StorageError.self) { _ = try store.list(bucket, pageToken: "not base64!") }
        }
    }
}
