import Foundation
import Testing

@testable import HearthStorage

/// CRC-32C eight bytes a step agrees with the definition (one bit at a time), whatever the length
/// and however the bytes are split into updates.
@Suite struct CRC32CTests {
    /// The definition: reflected, polynomial 0x82F63B78, one bit at a time.
    static func bitwise(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0x82F6_3B78 : crc >> 1 }
        }
        return crc ^ 0xFFFF_FFFF
    }

    /// The checksum by `CRC32C.update` (the CPU's instruction where it has one), or by its tables.
    static func checksum(_ bytes: [UInt8], splitAt cuts: [Int] = [], tables: Bool = false) -> UInt32 {
        var crc = CRC32C()
        var start = 0
        for cut in cuts + [bytes.count] where cut >= start {
            bytes[start..<cut].withUnsafeBytes { tables ? crc.updateWithTables($0) : crc.update($0) }
            start = cut
        }
        return crc.value
    }

    @Test func thisMachineUsesTheInstructionWhereItHasOne() throws {
        // x86-64 with SSE 4.2 (every x86-64 server of the last decade) or ARM with CRC.
        let flags = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
        if flags.contains(" sse4_2") || flags.contains(" crc32") { #expect(CRC32C.usesHardware) }
    }

    @Test func theCheckValueAndHello() {
        #expect(Self.checksum(Array("123456789".utf8)) == 0xE306_9283)
        #expect(Self.checksum(Array("hello".utf8)) == 0x9A71_BB4C)
        #expect(Self.checksum([]) == 0)
    }

    @Test func everyLengthAndSplitAgreesWithTheDefinition() {
        var generator = SystemRandomNumberGenerator()
        for length in 0..<70 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            #expect(Self.checksum(bytes) == Self.bitwise(bytes), "length \(length)")
            let cuts = [0, 1, 3, 11, 19, 40, 41].filter { $0 <= length }
            #expect(Self.checksum(bytes, splitAt: cuts) == Self.bitwise(bytes), "length \(length) split")
            #expect(Self.checksum(bytes, splitAt: cuts, tables: true) == Self.bitwise(bytes), "length \(length) tables")
        }
        let large = (0..<100_003).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 7) }
        #expect(Self.checksum(large, splitAt: [5, 65_537]) == Self.bitwise(large))
        #expect(Self.checksum(large, splitAt: [5, 65_537], tables: true) == Self.bitwise(large))
    }
}
