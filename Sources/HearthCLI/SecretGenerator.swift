import Foundation

/// Random credentials for secrets the user did not give.
enum SecretGenerator {
    /// 32 random bytes from the system's CSPRNG, base64url without padding (43 characters).
    static func generate() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return base64URL(bytes)
    }

    /// `bytes` as base64url (RFC 4648 §5) without padding.
    static func base64URL(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
