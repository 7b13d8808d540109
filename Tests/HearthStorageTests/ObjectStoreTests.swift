import Crypto
import Foundation
import HearthStorage
import HearthTestSupport
import Testing

/// The object store on a real data directory: uploads, replacements, deletes and their files;
/// what a crash leaves is swept at the next open.
@Suite struct ObjectStoreTests {
    static let bucket = try! BucketName("test.appspot.com")

    /// A store in a temporary directory, with a fixed clock.
    final class Fixture {
        let directory: TemporaryDirectory
        var store: ObjectStore

        init(maxObjectSize: UInt64 = ObjectStore.defaultMaxObjectSize) throws {
            directory = try TemporaryDirectory(prefix: "hearth-storage")
            store = try ObjectStore(dataDirectory: directory.path, maxObjectSize: maxObjectSize) { 1_700_000_000_000 }
        }

        func reopen() throws {
            store.close()
            store = try ObjectStore(dataDirectory: directory.path) { 1_700_000_000_000 }
        }

        @discardableResult
        func put(
            _ name: String,
            _ text: String,
            in bucket: BucketName = ObjectStoreTests.bucket
        ) throws -> ObjectMetadata {
            let upload = try store.beginUpload()
            // In pieces, as a body arrives.
            for piece in text.utf8.chunked(into: 3) {
                try piece.withUnsafeBytes { try upload.append($0) }
            }
            return try store.finish(upload, as: try ObjectName(name), in: bucket, contentType: "text/plain")
        }

        func bytes(of object: ObjectMetadata) throws -> String {
            String(decoding: try Data(contentsOf: URL(fileURLWithPath: store.path(of: object))), as: UTF8.self)
        }

        func files(_ folder: String) -> [String] {
            ((try? FileManager.default.contentsOfDirectory(atPath: directory.path + "/storage/" + folder)) ?? [])
                .sorted()
        }

        deinit {
            store.close()
            directory.remove()
        }
    }

    @Test func anUploadIsStoredWithItsMetadata() throws {
        let fixture = try Fixture()
        let object = try fixture.put("users/u1/hello.txt", "hello")
        #expect(object.name == "users/u1/hello.txt")
        #expect(object.bucket == "test.appspot.com")
        #expect(object.size == 5)
        #expect(object.md5Hash == "XUFAKrxLKna5cZ2REBfFkg==")  // MD5("hello"), base64
        #expect(object.crc32c == "mnG7TA==")  // CRC-32C("hello") = 0x9a71bb4c, big-endian, base64
        #expect(object.contentType == "text/plain")
        #expect(object.metageneration == 1)
        #expect(object.timeCreated == 1_700_000_000_000 && object.updated == object.timeCreated)
        #expect(object.downloadTokens.count == 1 && object.downloadTokens[0].count == 36)
        #expect(try fixture.bytes(of: object) == "hello")
        #expect(try fixture.store.metadata(Self.bucket, ObjectName("users/u1/hello.txt")) == object)
        #expect(fixture.files("tmp").isEmpty)
    }

    @Test func aNewUploadReplacesTheOldVersionAndItsFile() throws {
        let fixture = try Fixture()
        let first = try fixture.put("a.txt", "one")
        let second = try fixture.put("a.txt", "two!")
        #expect(second.generation != first.generation)
        #expect(try fixture.bytes(of: second) == "two!")
        #expect(fixture.files("objects") == [second.generation])
        #expect(try fixture.store.list(Self.bucket).items == [second])
    }

    @Test func aDeleteRemovesMetadataAndFile() throws {
        let fixture = try Fixture()
        let object = try fixture.put("gone.txt", "bye")
        try fixture.store.delete(Self.bucket, ObjectName("gone.txt"))
        #expect(fixture.files("objects").isEmpty)
        #expect {
            _ = try fixture.store.metadata(Self.bucket, ObjectName("gone.txt"))
        } throws: { ($0 as? StorageError)?.code == .notFound }
        #expect {
            try fixture.store.delete(Self.bucket, ObjectName("gone.txt"))
        } throws: { ($0 as? StorageError)?.code == .notFound }
        _ = object
    }

    @Test func anObjectPastTheLimitIsRefusedWhileStreamingAndLeavesNothing() throws {
        let fixture = try Fixture(maxObjectSize: 10)
        let upload = try fixture.store.beginUpload()
        try Array("123456".utf8).withUnsafeBytes { try upload.append($0) }
        #expect {
            try Array("7890X".utf8).withUnsafeBytes { try upload.append($0) }
        } throws: { ($0 as? StorageError)?.code == .tooLarge && ($0 as? StorageError)?.code.httpStatus == 413 }
        #expect(fixture.files("tmp").isEmpty)
        #expect(fixture.files("objects").isEmpty)
    }

    @Test func customMetadataOverItsLimitIsRefusedAndNothingIsVisible() throws {
        let fixture = try Fixture()
        let upload = try fixture.store.beginUpload()
        try Array("x".utf8).withUnsafeBytes { try upload.append($0) }
        #expect {
            _ = try fixture.store.finish(
                upload,
                as: ObjectName("big-meta"),
                in: Self.bucket,
                contentType: nil,
                metadata: ["k": String(repeating: "v", count: 8 * 1024)]
            )
        } throws: { ($0 as? StorageError)?.code == .invalidMetadata }
        #expect(fixture.files("tmp").isEmpty && fixture.files("objects").isEmpty)
        #expect(try fixture.store.list(Self.bucket).items.isEmpty)
    }

    /// What a crash leaves — a part file of an unfinished upload, a file installed whose metadata
    /// never committed — is removed at the next open; committed objects stay.
    @Test func theSweepRemovesWhatACrashLeftAndKeepsCommittedObjects() throws {
        let fixture = try Fixture()
        let kept = try fixture.put("kept.txt", "kept")
        let unfinished = try fixture.store.beginUpload()
        try Array("partial".utf8).withUnsafeBytes { try unfinished.append($0) }
        let orphan = fixture.directory.path + "/storage/objects/1234567890"
        try Data("orphan".utf8).write(to: URL(fileURLWithPath: orphan))
        #expect(fixture.files("tmp").count == 1)

        try fixture.reopen()
        #expect(fixture.store.swept == 2)
        #expect(fixture.files("tmp").isEmpty)
        #expect(fixture.files("objects") == [kept.generation])
        #expect(try fixture.bytes(of: fixture.store.metadata(Self.bucket, ObjectName("kept.txt"))) == "kept")
    }

    @Test func generationsStartPastEveryLiveOneWhenTheClockIsBehind() throws {
        let fixture = try Fixture()
        let first = try fixture.put("a.txt", "first")
        let second = try fixture.put("b.txt", "second")
        // A restored directory, or a clock that stepped back: the new process's clock is earlier.
        fixture.store.close()
        fixture.store = try ObjectStore(dataDirectory: fixture.directory.path) { 1_600_000_000_000 }
        let third = try fixture.put("c.txt", "third")
        #expect(UInt64(third.generation)! > UInt64(second.generation)!)
        #expect(try fixture.bytes(of: first) == "first")
        #expect(try fixture.bytes(of: second) == "second")
    }

    @Test func piecesAppendedTwoThreadsAtATimeGiveTheSameObject() throws {
        let fixture = try Fixture()
        let bytes = (0..<300_001).map { UInt8(truncatingIfNeeded: $0 &* 31 >> 3) }
        let upload = try fixture.store.beginUpload()
        for batch in stride(from: 0, to: bytes.count, by: 100_000) {
            let end = min(batch + 100_000, bytes.count)
            try bytes[batch..<end].withUnsafeBytes { raw in
                // Pieces of uneven sizes, as a socket hands them over.
                var pieces: [UnsafeRawBufferPointer] = []
                var start = 0
                for size in [1, 7, 65_536, 3, 40_000] where start < raw.count {
                    let stop = min(start + size, raw.count)
                    pieces.append(UnsafeRawBufferPointer(rebasing: raw[start..<stop]))
                    start = stop
                }
                if start < raw.count { pieces.append(UnsafeRawBufferPointer(rebasing: raw[start...])) }
                try upload.append(pieces: pieces)
            }
        }
        let object = try fixture.store.finish(upload, as: try ObjectName("p.bin"), in: Self.bucket, contentType: nil)
        #expect(object.size == UInt64(bytes.count))
        #expect(object.md5Hash == Data(Insecure.MD5.hash(data: bytes)).base64EncodedString())
        let crc = CRC32CTests.bitwise(bytes)
        #expect(
            object.crc32c
                == Data([24, 16, 8, 0].map { UInt8(truncatingIfNeeded: crc >> UInt32($0)) }).base64EncodedString()
        )
        #expect(try Data(contentsOf: URL(fileURLWithPath: fixture.store.path(of: object))) == Data(bytes))
    }

    @Test func bucketsAreSeparateSpaces() throws {
        let fixture = try Fixture()
        let other = try BucketName("other.appspot.com")
        try fixture.put("same.txt", "in test")
        try fixture.put("same.txt", "in other", in: other)
        #expect(try fixture.bytes(of: fixture.store.metadata(Self.bucket, ObjectName("same.txt"))) == "in test")
        #expect(try fixture.bytes(of: fixture.store.metadata(other, ObjectName("same.txt"))) == "in other")
        #expect(try fixture.store.list(other).items.map(\.name) == ["same.txt"])
    }
}

extension String.UTF8View {
    /// The bytes in pieces of at most `size`.
    func chunked(into size: Int) -> [[UInt8]] {
        let bytes = Array(self)
        return stride(from: 0, to: bytes.count, by: size).map { Array(bytes[$0..<Swift.min($0 + size, bytes.count)]) }
    }
}
