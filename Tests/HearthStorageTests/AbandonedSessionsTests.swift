import Foundation
import HearthStorage
import HearthTestSupport
import Testing

/// 10,000 abandoned resumable sessions (the default cap), each with a few bytes: what they cost
/// on disk is bounded (one catalog entry and one part file each, the part holding only the bytes
/// sent), the 10,001st start is refused, cheaply (expired sessions are looked for at most once a
/// minute), and once they expire (7 days after their start) a start removes them with their
/// bytes, without a restart.
@Suite struct AbandonedSessionsTests {
    @Test func tenThousandAbandonedSessionsAreBoundedAndExpire() throws {
        let directory = try TemporaryDirectory(prefix: "hearth-abandoned")
        defer { directory.remove() }
        let time = ManualClock(milliseconds: 1_000)
        let store = try ObjectStore(dataDirectory: directory.path) { time.now }
        defer { store.close() }
        let bucket = try BucketName("abuse.appspot.com")
        let count = ObjectStore.defaultMaxSessions
        #expect(store.maxSessions == count)
        let started = ContinuousClock.now
        for index in 0..<count {
            let session = try store.startResumable(
                bucket,
                ObjectName("abandoned/\(index).bin"),
                fields: ObjectFields(contentType: "image/jpeg", metadata: ["chatId": "c\(index)"]),
                expectedSize: 1 << 20
            )
            let chunk = try store.continueResumable(session.id, at: 0)
            try chunk.append(Array("0123456789".utf8))
            chunk.close()
        }
        let took = ContinuousClock.now - started
        #expect(throws: StorageError.self) {
            _ = try store.startResumable(bucket, ObjectName("one-more"), fields: ObjectFields(), expectedSize: nil)
        }
        let uploads = directory.url.appendingPathComponent("storage/uploads")
        let parts = try FileManager.default.contentsOfDirectory(atPath: uploads.path)
        #expect(parts.count == count)
        let partBytes = try parts.reduce(0) { sum, name in
            sum
                + (try FileManager.default.attributesOfItem(atPath: uploads.appendingPathComponent(name).path)[.size]
                    as? Int ?? 0)
        }
        #expect(partBytes == count * 10, "the part files hold the bytes sent, nothing more")
        let catalog = Self.bytes(under: directory.url.appendingPathComponent("storage/db"))
        // Each session is one JSON entry of ~300 bytes in the catalog's LevelDB (its log until a
        // compaction): 10,000 stay within a few MB.
        #expect(catalog < 8 << 20, "the catalog takes \(catalog) bytes for \(count) sessions")
        print(
            "AbandonedSessionsTests: \(count) sessions started in \(took); catalog \(catalog) bytes, parts \(partBytes) bytes"
        )

        // Starts at the cap look for expired sessions at most once a minute (a look reads them
        // all): the first refusal looked; a week later, 30 s after another look, they have
        // expired but a start is still refused; a minute after that look, it removes them (and
        // their bytes) and is taken, with no restart.
        let lookedAt = 1_000 + ObjectStore.sessionLifetime - 30_000
        time.set(lookedAt)
        #expect(throws: StorageError.self) {
            _ = try store.startResumable(bucket, ObjectName("one-more"), fields: ObjectFields(), expectedSize: nil)
        }
        let refusals = ContinuousClock.now
        time.set(lookedAt + 30_001)
        for _ in 0..<100 {
            #expect(throws: StorageError.self) {
                _ = try store.startResumable(bucket, ObjectName("one-more"), fields: ObjectFields(), expectedSize: nil)
            }
        }
        print("AbandonedSessionsTests: 100 starts refused at the cap in \(ContinuousClock.now - refusals)")
        time.set(lookedAt + 60_000)
        let fresh = try store.startResumable(bucket, ObjectName("fresh.bin"), fields: ObjectFields(), expectedSize: nil)
        #expect(try FileManager.default.contentsOfDirectory(atPath: uploads.path) == [fresh.id])
        #expect(throws: StorageError.self) { _ = try store.resumable(parts[0]) }
    }

    static func bytes(under url: URL) -> Int {
        let files = FileManager.default.enumerator(atPath: url.path)?.allObjects as? [String] ?? []
        return files.reduce(0) { sum, name in
            sum
                + ((try? FileManager.default.attributesOfItem(atPath: url.appendingPathComponent(name).path)[.size])
                    as? Int ?? 0)
        }
    }
}
