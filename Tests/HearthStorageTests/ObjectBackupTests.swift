import Foundation
import HearthCore
import HearthStorage
import HearthStore
import HearthTestSupport
import Testing

/// The objects' part of a backup on a real store: the catalog at the moment the backup began,
/// each file streamed in records, an object whose file went before the backup reached it left
/// out whole, one already being read carried whole; and a restore of those records into a new
/// directory serves the same metadata and bytes.
@Suite struct ObjectBackupTests {
    typealias Fixture = ObjectStoreTests.Fixture

    /// The records of `chunk`: (tag, key, value).
    static func records(of chunk: [UInt8]) -> [(tag: UInt8, key: [UInt8], value: [UInt8])] {
        var records: [(tag: UInt8, key: [UInt8], value: [UInt8])] = []
        var offset = 0
        func field() -> [UInt8] {
            var length = 0
            var shift = 0
            while true {
                let byte = chunk[offset]
                offset += 1
                length |= Int(byte & 0x7f) << shift
                if byte < 0x80 { break }
                shift += 7
            }
            defer { offset += length }
            return Array(chunk[offset..<(offset + length)])
        }
        while offset < chunk.count {
            let tag = chunk[offset]
            offset += 1
            let key = field()
            records.append((tag, key, field()))
        }
        return records
    }

    /// Feeds `records` to a restore into a new directory; that directory.
    static func restore(
        _ records: [(tag: UInt8, key: [UInt8], value: [UInt8])]
    ) throws -> (TemporaryDirectory, ObjectRestore) {
        let target = try TemporaryDirectory(prefix: "hearth-storage-restore")
        let restore = ObjectRestore(dataDirectory: target.path)
        for record in records {
            try restore.take(record.tag == UInt8(ascii: "c") ? .metadata : .bytes, key: record.key, value: record.value)
        }
        try restore.finish()
        return (target, restore)
    }

    @Test func theBackupIsTheCatalogAtItsStartWithEveryFileWhole() throws {
        let fixture = try Fixture()
        let big = String(repeating: "0123456789abcdef", count: 100_000)  // 1.6 MB: two records
        let kept = try fixture.put("a/kept.txt", big)
        try fixture.put("b/deleted.txt", "deleted after the snapshot")
        try fixture.put("c/replaced.txt", "replaced after the snapshot")
        try fixture.put("d/empty.txt", "")
        let backup = try fixture.store.backup()
        // Changes after the snapshot: a delete and a replacement (both unlink the file the
        // snapshot names) and a new upload (not in the snapshot).
        try fixture.store.delete(ObjectStoreTests.bucket, ObjectName("b/deleted.txt"))
        try fixture.put("c/replaced.txt", "the new version")
        try fixture.put("e/new.txt", "uploaded after the snapshot")

        var chunk = BackupChunk()
        // A small first chunk: the first object's file is open when it is deleted.
        #expect(try backup.append(to: &chunk, maxBytes: 10) == false)
        try fixture.store.delete(ObjectStoreTests.bucket, ObjectName("a/kept.txt"))
        while try !backup.append(to: &chunk, maxBytes: chunk.count + (1 << 20)) {}
        backup.close()
        #expect(backup.carried == 2 && backup.skipped == 2)
        let records = Self.records(of: chunk.bytes)
        #expect(UInt64(records.count) == chunk.records)
        #expect(records.map { Character(UnicodeScalar($0.tag)) } == ["c", "b", "b", "c"])
        #expect(records.allSatisfy { $0.tag == UInt8(ascii: "c") || $0.value.count <= BackupObjectRecord.maxBytes })

        let (target, restore) = try Self.restore(records)
        defer { target.remove() }
        #expect(restore.restored == 2 && restore.bytes == UInt64(big.utf8.count) && restore.mismatched.isEmpty)
        let restored = try ObjectStore(dataDirectory: target.path)
        defer { restored.close() }
        #expect(restored.swept == 0)
        let object = try restored.metadata(ObjectStoreTests.bucket, ObjectName("a/kept.txt"))
        #expect(object == kept)
        #expect(try String(contentsOfFile: restored.path(of: object), encoding: .utf8) == big)
        #expect(try restored.metadata(ObjectStoreTests.bucket, ObjectName("d/empty.txt")).size == 0)
        #expect(try restored.list(ObjectStoreTests.bucket).items.map(\.name) == ["a/kept.txt", "d/empty.txt"])
    }

    @Test func aRestoreRefusesBytesThatDoNotFitTheirRecordAndNamesAMismatchedMD5() throws {
        let fixture = try Fixture()
        try fixture.put("x.txt", "twelve bytes")
        let backup = try fixture.store.backup()
        var chunk = BackupChunk()
        while try !backup.append(to: &chunk, maxBytes: chunk.count + (1 << 20)) {}
        backup.close()
        let records = Self.records(of: chunk.bytes)
        #expect(records.count == 2)

        // Bytes cut short: refused at the end of the object.
        let short = [records[0], (records[1].tag, records[1].key, Array(records[1].value.dropLast()))]
        #expect(throws: StoreError.self) { try Self.restore(short) }
        // Bytes without their object's record: refused.
        #expect(throws: StoreError.self) { try Self.restore([records[1]]) }
        // Bytes of the right size but other content: restored as they were, and named.
        var flipped = records[1].value
        flipped[0] ^= 0x20
        let (target, restore) = try Self.restore([records[0], (records[1].tag, records[1].key, flipped)])
        defer { target.remove() }
        #expect(restore.mismatched == ["test.appspot.com/x.txt"])
    }
}
