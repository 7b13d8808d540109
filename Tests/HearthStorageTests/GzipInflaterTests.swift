import Foundation
import HearthStorage
import HearthTestSupport
import Testing

/// `GzipInflater` against what the system's `gzip` writes: whole streams fed in pieces of any
/// size and taken in pieces of any size (output zlib holds back for want of room comes out
/// before it asks for more input), concatenated members, a large expansion taken in bounded
/// pieces, and bytes that are not gzip, corrupt or cut short.
@Suite struct GzipInflaterTests {

    /// Decompresses `compressed` fed `feedSize` bytes at a time, taking `readSize` at a time;
    /// checks no piece is larger than asked.
    static func inflate(_ compressed: [UInt8], feedSize: Int, readSize: Int) throws -> [UInt8] {
        let inflater = try GzipInflater()
        var output: [UInt8] = []
        var offset = 0
        while true {
            if inflater.needsInput {
                guard offset < compressed.count else { break }
                let end = min(offset + feedSize, compressed.count)
                inflater.feed(Array(compressed[offset..<end]))
                offset = end
            }
            let piece = try inflater.read(upTo: readSize)
            #expect(piece.count <= readSize)
            output += piece
        }
        try inflater.finish()
        return output
    }

    static func text(_ count: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count)
        var line = 0
        while bytes.count < count {
            bytes += Array("line \(line) of the gzip test, with some words repeated repeated\n".utf8)
            line += 1
        }
        return Array(bytes.prefix(count))
    }

    @Test func streamsInAnyPieces() throws {
        let original = Self.text(300_000)
        let compressed = try TestCommand.gzip(original)
        #expect(compressed.count < original.count / 4)
        for (feed, read) in [(compressed.count, 1 << 20), (1, 7), (4096, 1), (65_536, 65_536), (3, 256 * 1024)] {
            #expect(
                try Self.inflate(compressed, feedSize: feed, readSize: read) == original,
                "feed \(feed) read \(read)"
            )
        }
    }

    @Test func concatenatedMembersAreOneStream() throws {
        let (first, second) = (Self.text(10_000), Array("and a second member".utf8))
        let compressed = try TestCommand.gzip(first) + TestCommand.gzip(second, level: 1)
        #expect(try Self.inflate(compressed, feedSize: 1000, readSize: 333) == first + second)
    }

    /// 64 MiB of zeros in about 64 KiB: each read gives at most what it asks for.
    @Test func aLargeExpansionComesOutInBoundedPieces() throws {
        let zeros = [UInt8](repeating: 0, count: 64 << 20)
        let compressed = try TestCommand.gzip(zeros, level: 9)
        #expect(compressed.count < 100_000)
        let inflater = try GzipInflater()
        inflater.feed(compressed)
        var total = 0
        var largest = 0
        while !inflater.needsInput {
            let piece = try inflater.read(upTo: 256 * 1024)
            #expect(piece.allSatisfy { $0 == 0 })
            total += piece.count
            largest = max(largest, piece.count)
        }
        try inflater.finish()
        #expect(total == zeros.count && largest == 256 * 1024)
    }

    @Test func refusesWhatIsNotGzipCorruptOrCutShort() throws {
        let notGzip = try GzipInflater()
        notGzip.feed(Array("plain text, not gzip".utf8))
        #expect(throws: GzipInflater.Failure.self) { try notGzip.read(upTo: 1024) }

        let compressed = try TestCommand.gzip(Self.text(50_000))
        var corrupt = compressed
        // A flipped byte in the middle of the deflate data, or in the trailer's CRC-32.
        corrupt[compressed.count / 2] ^= 0xFF
        #expect(throws: GzipInflater.Failure.self) { try Self.inflate(corrupt, feedSize: 4096, readSize: 4096) }
        var badChecksum = compressed
        badChecksum[compressed.count - 6] ^= 0x01
        #expect(throws: GzipInflater.Failure.self) { try Self.inflate(badChecksum, feedSize: 4096, readSize: 4096) }

        let cut = Array(compressed.prefix(compressed.count - 9))
        #expect(throws: GzipInflater.Failure.self) { try Self.inflate(cut, feedSize: 4096, readSize: 4096) }
        #expect(throws: GzipInflater.Failure.self) { try GzipInflater().finish() }

        let trailingGarbage = compressed + Array("garbage".utf8)
        #expect(throws: GzipInflater.Failure.self) {
            try Self.inflate(trailingGarbage, feedSize: 4096, readSize: 4096)
        }
    }
}
