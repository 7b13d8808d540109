import Foundation
import HearthAccounts

/// Random credentials for secrets the user did not give.
enum SecretGenerator {
    /// 32 random bytes from the system's CSPRNG, base64url without padding (43 characters).
    static func generate() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return Base64URL.encode(bytes)
    }
}
