import Crypto
import Foundation
import HearthStorage
import HearthTestSupport
import Testing

/// A resumable upload's checksums are counted chunk by chunk as the bytes arrive, and whatever
/// path the bytes took (several chunks, a chunk repeated after a refusal, a reopen between
/// chunks) the finalized object's MD5 and CRC-32C are those of its bytes.
@Suite struct ResumableChecksumTests {
    let bucket: BucketName

    init() throws {
        bucket = try BucketName("c.appspot.com")
    }

    @Test(arguments: [false, true])
    func checksumsAreThoseOfTheBytesAcrossChunksRefusalsAndReopens(reopening: Bool) throws {
        let directory = try TemporaryDirectory(prefix: "hearth-resumable-sums")
        defer { directory.remove() }
        var store = try ObjectStore(dataDirectory: directory.path)
        let pieces = (0..<5).map { index in
            (0..<(70_000 + index * 13)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ index) }
        }
        let whole = pieces.flatMap { $0 }
        let session = try store.startResumable(
            bucket,
            ObjectName("sums.bin"),
            fields: ObjectFields(),
            expectedSize: UInt64(whole.count)
        )
        var offset: UInt64 = 0
        for (index, piece) in pieces.enumerated() {
            if index == 2 {
                // A chunk at the wrong offset is refused and counts nothing.
                #expect(throws: StorageError.self) { _ = try store.continueResumable(session.id, at: offset + 1) }
            }
            if index == 3, reopening {
                // A reopen between chunks: the counted checksums are gone, the finalize reads the file.
                store.close()
                store = try ObjectStore(dataDirectory: directory.path)
            }
            let chunk = try store.continueResumable(session.id, at: offset)
            try chunk.append(piece)
            chunk.close()
            offset += UInt64(piece.count)
        }
        defer { store.close() }
        let object = try store.finalizeResumable(session.id)
        #expect(object.size == UInt64(whole.count))
        #expect(object.md5Hash == Data(Insecure.MD5.hash(data: whole)).base64EncodedString())
        #expect(object.crc32c == Self.crc32cBase64(whole))
    }

    @Test func aChunkPastTheAnnouncedSizeLeavesTheCountRight() throws {
        let directory = try TemporaryDirectory(prefix: "hearth-resumable-sums")
        defer { directory.remove() }
        let store = try ObjectStore(dataDirectory: directory.path)
        defer { store.close() }
        let session = try store.startResumable(bucket, ObjectName("over.bin"), fields: ObjectFields(), expectedSize: 6)
        let first = try store.continueResumable(session.id, at: 0)
        try first.append(Array("abc".utf8))
        #expect(throws: StorageError.self) { try first.append(Array("defgh".utf8)) }
        first.close()
        let second = try store.continueResumable(session.id, at: 3)
        try second.append(Array("def".utf8))
        second.close()
        let object = try store.finalizeResumable(session.id)
        #expect(object.md5Hash == Data(Insecure.MD5.hash(data: Array("abcdef".utf8))).base64EncodedString())
        #expect(object.crc32c == Self.crc32cBase64(Array("abcdef".utf8)))
    }

    /// CRC-32C (Castagnoli), bit by bit, big-endian and base64 as Cloud Storage reports it.
    static func crc32cBase64(_ bytes: [UInt8]) -> String {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0x82F6_3B78 : crc >> 1 }
        }
        crc ^= 0xFFFF_FFFF
        return Data([UInt8(crc >> 24), UInt8(crc >> 16 & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc & 0xFF)])
            .base64EncodedString()
    }
}
