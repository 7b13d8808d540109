import Crypto

/// `hashing.crc32`, `hashing.crc32c`, `hashing.md5` and `hashing.sha256` of a string (its UTF-8)
/// or bytes; each answers bytes (firebase.google.com/docs/reference/rules/rules.hashing), compared
/// as `hashing.md5(x).toBase64() == resource.md5Hash`.
extension StorageRuleEvaluator {
    func hashing(_ name: String, _ value: StorageRuleValue) -> StorageRuleValue {
        let input: [UInt8]
        switch value {
        case .string(let s): input = Array(s.utf8)
        case .bytes(let b): input = b
        default: return .error("hashing.\(name) takes a string or bytes, not \(value.typeName)")
        }
        switch name {
        case "md5": return .bytes(Array(Insecure.MD5.hash(data: input)))
        case "sha256": return .bytes(Array(SHA256.hash(data: input)))
        case "crc32": return .bytes(Self.bigEndian(Self.crc(input, polynomial: 0xEDB8_8320)))
        case "crc32c": return .bytes(Self.bigEndian(Self.crc(input, polynomial: 0x82F6_3B78)))
        default: return .error("hashing.\(name) is not a function")
        }
    }

    /// A reflected CRC-32 one bit at a time (rules hash short strings).
    static func crc(_ bytes: [UInt8], polynomial: UInt32) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ polynomial : crc >> 1 }
        }
        return crc ^ 0xFFFF_FFFF
    }

    static func bigEndian(_ value: UInt32) -> [UInt8] {
        [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> UInt32($0)) }
    }
}
