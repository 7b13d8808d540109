import Foundation
import HearthStorage
import HearthTestSupport
import Testing

/// Unfinished resumable uploads hold at most `maxSessionBytes` together: a chunk past it is
/// refused whole (nothing written, the session can go on later), and the bytes come back when an
/// upload finishes, is cancelled or expires; a reopened store counts what its sessions hold.
@Suite struct ResumableByteBudgetTests {
    @Test func chunksPastTheBudgetAreRefusedUntilUploadsEnd() throws {
        let directory = try TemporaryDirectory(prefix: "hearth-resumable-budget")
        defer { directory.remove() }
        let time = ManualClock(milliseconds: 1_000)
        let bucket = try BucketName("b.appspot.com")
        var store = try ObjectStore(dataDirectory: directory.path, maxSessionBytes: 10) { time.now }
        let a = try store.startResumable(bucket, ObjectName("a"), fields: ObjectFields(), expectedSize: nil)
        let b = try store.startResumable(bucket, ObjectName("b"), fields: ObjectFields(), expectedSize: nil)
        try append("123456", to: a.id, in: store)
        let refused = #expect(throws: StorageError.self) { try append("abcdef", to: b.id, in: store) }
        #expect(refused?.code == .tooManySessions)
        #expect(try store.resumable(b.id).received == 0)
        try store.cancelResumable(a.id)
        try append("abcdef", to: b.id, in: store)
        _ = try store.finalizeResumable(b.id)

        // Finished: the budget is free again; a reopen counts what unfinished sessions hold.
        let c = try store.startResumable(bucket, ObjectName("c"), fields: ObjectFields(), expectedSize: nil)
        try append("12345678", to: c.id, in: store)
        store.close()
        store = try ObjectStore(dataDirectory: directory.path, maxSessionBytes: 10) { time.now }
        let d = try store.startResumable(bucket, ObjectName("d"), fields: ObjectFields(), expectedSize: nil)
        #expect(throws: StorageError.self) { try append("xyz", to: d.id, in: store) }
        try append("xy", to: d.id, in: store)

        // Expired sessions give their bytes back.
        store.close()
        time.set(1_000 + ObjectStore.sessionLifetime + 1)
        store = try ObjectStore(dataDirectory: directory.path, maxSessionBytes: 10) { time.now }
        defer { store.close() }
        let e = try store.startResumable(bucket, ObjectName("e"), fields: ObjectFields(), expectedSize: nil)
        try append("0123456789", to: e.id, in: store)
        #expect(try store.finalizeResumable(e.id).size == 10)
    }

    private func append(_ text: String, to id: String, in store: ObjectStore) throws {
        let received = try store.resumable(id).received
        let chunk = try store.continueResumable(id, at: received)
        defer { chunk.close() }
        try chunk.append(Array(text.utf8))
    }
}
