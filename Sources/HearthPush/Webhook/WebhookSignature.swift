import Crypto
public import Foundation

/// The webhook's `Hearth-Signature`: `sha256=` and the lowercase hex HMAC-SHA256 of the body's
/// exact bytes, keyed with the admin secret's UTF-8 bytes.
public enum WebhookSignature {
    /// The header's name.
    public static let headerName = "Hearth-Signature"

    /// The header's value for `body`.
    public static func value(for body: some DataProtocol, secret: String) -> String {
        let code = HMAC<SHA256>.authenticationCode(for: body, using: SymmetricKey(data: Array(secret.utf8)))
        return "sha256=" + code.map { byte in String(byte, radix: 16).leftPadded(to: 2) }.joined()
    }

    /// Whether `header` is the signature of `body` (compared in constant time): what a receiver
    /// checks before it trusts a push.
    public static func isValid(_ header: String, body: some DataProtocol, secret: String) -> Bool {
        guard header.hasPrefix("sha256="), let code = hexBytes(header.dropFirst("sha256=".count)) else {
            return false
        }
        return HMAC<SHA256>.isValidAuthenticationCode(
            code,
            authenticating: body,
            using: SymmetricKey(data: Array(secret.utf8))
        )
    }

    private static func hexBytes(_ text: Substring) -> [UInt8]? {
        let digits = Array(text.utf8)
        guard digits.count == 64 else { return nil }
        var bytes: [UInt8] = []
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let byte = UInt8(String(decoding: digits[index...index + 1], as: UTF8.self), radix: 16) else {
                return nil
            }
            bytes.append(byte)
        }
        return bytes
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
