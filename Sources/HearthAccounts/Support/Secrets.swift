import Crypto

/// Random values and comparisons that do not leak through timing.
enum Secrets {
    /// `count` bytes from the system's CSPRNG.
    static func randomBytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }

    /// A random opaque token: 32 bytes, base64url (43 characters).
    static func randomToken() -> String { Base64URL.encode(randomBytes(32)) }

    /// A Firebase-style uid: 28 letters and digits.
    static func randomUID() -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
        var generator = SystemRandomNumberGenerator()
        return String((0..<28).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &generator)] })
    }

    /// SHA-256 of `text` as lowercase hex: how opaque tokens and codes are stored.
    static func digestHex(_ text: String) -> String {
        SHA256.hash(data: Array(text.utf8)).map { byte in
            let hex = String(byte, radix: 16)
            return byte < 16 ? "0" + hex : hex
        }.joined()
    }

    /// Equal contents, compared without an early exit.
    static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for index in a.indices { difference |= a[index] ^ b[index] }
        return difference == 0
    }
}
