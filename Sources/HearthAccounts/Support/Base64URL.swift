import Foundation

/// base64url without padding (RFC 4648 §5), as JWTs and opaque tokens use it.
public enum Base64URL {
    public static func encode<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// The bytes `text` encodes, or nil when it is not base64url: a character outside the
    /// alphabet (the standard alphabet's `+` and `/` are taken too), any `=`, or a length that
    /// leaves a lone character. Bits past the last whole byte are ignored, as Foundation's
    /// decoder ignores them. Byte by byte, with no string copied: every REST request's ID token
    /// goes through it.
    public static func decode(_ text: Substring) -> [UInt8]? {
        let utf8 = text.utf8
        let count = utf8.count
        guard count % 4 != 1 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count * 3 / 4)
        var accumulator: UInt32 = 0
        var bits = 0
        let decoded: Bool = sextets.withUnsafeBufferPointer { sextets in
            for character in utf8 {
                let sextet = sextets[Int(character)]
                guard sextet != invalid else { return false }
                accumulator = accumulator << 6 | UInt32(sextet)
                bits += 6
                if bits >= 8 {
                    bits -= 8
                    bytes.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
                    accumulator &= (1 << UInt32(bits)) - 1
                }
            }
            return true
        }
        return decoded ? bytes : nil
    }

    private static let invalid: UInt8 = 0xFF

    /// The value of each byte as a base64 digit (either alphabet), or `invalid`.
    private static let sextets: [UInt8] = {
        var table = [UInt8](repeating: invalid, count: 256)
        for (value, character) in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".utf8.enumerated() {
            table[Int(character)] = UInt8(value)
        }
        for (character, value) in [("-", 62), ("_", 63), ("+", 62), ("/", 63)] as [(Character, UInt8)] {
            table[Int(character.asciiValue!)] = value
        }
        return table
    }()
}
