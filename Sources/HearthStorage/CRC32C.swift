import CCRC32C
import Foundation

/// CRC-32C (Castagnoli), as Cloud Storage reports it (`crc32c`, `x-goog-hash`): computed while
/// an upload streams in. With the CPU's CRC instruction when it has one (`CCRC32C`: SSE 4.2 or
/// ARM's CRC extension, over 10 GB/s); else slicing-by-8, eight bytes a step through eight tables
/// (1.2 GB/s here: 0.9 s of a 1 GiB upload's 2.5 s of CPU, which the instruction takes away).
struct CRC32C: Sendable {
    /// Whether the CPU's instruction is used (checked once).
    static let usesHardware = hearth_crc32c_hardware() == 1

    /// Table `k` (256 entries from `k * 256`) advances a byte through `k` further zero bytes.
    private static let tables: [UInt32] = {
        var tables = [UInt32](repeating: 0, count: 8 * 256)
        for index in 0..<256 {
            var crc = UInt32(index)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0x82F6_3B78 : crc >> 1 }
            tables[index] = crc
        }
        for table in 1..<8 {
            for index in 0..<256 {
                let previous = tables[(table - 1) * 256 + index]
                tables[table * 256 + index] = (previous >> 8) ^ tables[Int(previous & 0xFF)]
            }
        }
        return tables
    }()

    private var state: UInt32 = 0xFFFF_FFFF

    mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress else { return }
        if Self.usesHardware {
            state = hearth_crc32c_update(state, base, bytes.count)
            return
        }
        updateWithTables(bytes)
    }

    /// The table-driven update (also what the tests compare the instruction's with).
    mutating func updateWithTables(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress else { return }
        var crc = state
        var offset = 0
        let count = bytes.count
        Self.tables.withUnsafeBufferPointer { table in
            while count - offset >= 8 {
                let low = UInt32(littleEndian: base.loadUnaligned(fromByteOffset: offset, as: UInt32.self)) ^ crc
                let high = UInt32(littleEndian: base.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self))
                crc =
                    table[7 * 256 + Int(low & 0xFF)] ^ table[6 * 256 + Int((low >> 8) & 0xFF)]
                    ^ table[5 * 256 + Int((low >> 16) & 0xFF)] ^ table[4 * 256 + Int(low >> 24)]
                    ^ table[3 * 256 + Int(high & 0xFF)] ^ table[2 * 256 + Int((high >> 8) & 0xFF)]
                    ^ table[256 + Int((high >> 16) & 0xFF)] ^ table[Int(high >> 24)]
                offset += 8
            }
            while offset < count {
                crc = table[Int((crc ^ UInt32(base.load(fromByteOffset: offset, as: UInt8.self))) & 0xFF)] ^ (crc >> 8)
                offset += 1
            }
        }
        state = crc
    }

    /// The checksum of everything so far.
    var value: UInt32 { state ^ 0xFFFF_FFFF }

    /// Big-endian bytes of the checksum, base64 (as Cloud Storage gives it).
    var base64: String {
        let value = self.value
        let bytes = [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> UInt32($0)) }
        return Data(bytes).base64EncodedString()
    }
}
