import Crypto
import Foundation
import HearthStorage
import HearthTestSupport
import Testing

/// A resumable upload outlives its store: after a reopen (a restart) the session says what it
/// received and takes the next chunk; sessions expire after their lifetime with their bytes.
@Suite struct ResumableRestartTests {
    @Test func aSessionResumesAfterAReopenAndExpiresLater() throws {
        let directory = try TemporaryDirectory(prefix: "hearth-resumable")
        defer { directory.remove() }
        let time = ManualClock(milliseconds: 1_000)
        let bucket = try BucketName("r.appspot.com")
        var store = try ObjectStore(dataDirectory: directory.path) { time.now }
        let session = try store.startResumable(bucket, ObjectName("r.bin"), fields: ObjectFields(), expectedSize: 6)
        let chunk = try store.continueResumable(session.id, at: 0)
        try chunk.append(Array("abc".utf8))
        chunk.close()
        store.close()

        store = try ObjectStore(dataDirectory: directory.path) { time.now }
        #expect(try store.resumable(session.id).received == 3)
        #expect(throws: StorageError.self) { _ = try store.continueResumable(session.id, at: 0) }
        let next = try store.continueResumable(session.id, at: 3)
        try next.append(Array("def".utf8))
        next.close()
        let object = try store.finalizeResumable(session.id)
        #expect(
            object.size == 6
                && object.md5Hash == Data(Insecure.MD5.hash(data: Array("abcdef".utf8))).base64EncodedString()
        )

        let abandoned = try store.startResumable(bucket, ObjectName("a.bin"), fields: ObjectFields(), expectedSize: nil)
        store.close()
        time.set(1_000 + ObjectStore.sessionLifetime + 1)
        store = try ObjectStore(dataDirectory: directory.path) { time.now }
        defer { store.close() }
        #expect(store.swept >= 1)
        #expect(throws: StorageError.self) { _ = try store.resumable(abandoned.id) }
        let uploads = try FileManager.default.contentsOfDirectory(atPath: directory.path + "/storage/uploads")
        #expect(uploads.isEmpty)
    }
}
