/// The binary encoding of the push queue's records: length-prefixed UTF-8 strings, LEB128
/// varints, 8-byte little-endian fixed words.
enum PushBytes {
    struct Writer {
        var bytes: [UInt8] = []

        mutating func byte(_ value: UInt8) { bytes.append(value) }

        mutating func varint(_ value: UInt64) {
            var value = value
            while value >= 0x80 {
                bytes.append(UInt8(value & 0x7f) | 0x80)
                value >>= 7
            }
            bytes.append(UInt8(value))
        }

        mutating func string(_ text: String) {
            varint(UInt64(text.utf8.count))
            bytes.append(contentsOf: text.utf8)
        }

        mutating func fixed(_ value: UInt64) {
            withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
        }
    }

    struct Reader {
        private let bytes: [UInt8]
        private var at = 0

        init(_ bytes: [UInt8]) { self.bytes = bytes }

        var atEnd: Bool { at == bytes.count }

        mutating func byte() -> UInt8? {
            guard at < bytes.count else { return nil }
            defer { at += 1 }
            return bytes[at]
        }

        mutating func varint() -> UInt64? {
            var value: UInt64 = 0
            var shift: UInt64 = 0
            while at < bytes.count, shift < 64 {
                let byte = bytes[at]
                at += 1
                value |= UInt64(byte & 0x7f) << shift
                if byte < 0x80 { return value }
                shift += 7
            }
            return nil
        }

        /// A varint that fits an `Int`.
        mutating func int() -> Int? {
            guard let value = varint(), value <= UInt64(Int.max) else { return nil }
            return Int(value)
        }

        mutating func string() -> String? {
            guard let length = int(), length <= bytes.count - at else { return nil }
            defer { at += length }
            return String(decoding: bytes[at..<(at + length)], as: UTF8.self)
        }

        mutating func fixed() -> UInt64? {
            guard bytes.count - at >= 8 else { return nil }
            var value: UInt64 = 0
            for shift in 0..<8 { value |= UInt64(bytes[at + shift]) << (8 * UInt64(shift)) }
            at += 8
            return value
        }
    }
}
