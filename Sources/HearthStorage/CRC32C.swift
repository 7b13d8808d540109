import Foundation

/// CRC-32C (Castagnoli), as Cloud Storage reports it (`crc32c`, `x-goog-hash`): computed while
/// an upload streams in, table-driven.
struct CRC32C: Sendable {
    private static let table: [UInt32] = (0..<256).map { index in
        var crc = UInt32(index)
        for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0x82F6_3B78 : crc >> 1 }
        return crc
    }

    private var state: UInt32 = 0xFFFF_FFFF

    mutating func update(_ bytes: UnsafeRawBufferPointer) {
        var crc = state
        for byte in bytes { crc = Self.table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
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
