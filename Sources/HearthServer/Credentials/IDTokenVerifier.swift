import Crypto
import Foundation
import HearthAccounts

/// Verifies Firebase-style ID tokens: JWTs signed HS256 with the JWT secret, or unsigned
/// (`alg: none`) under `--emulator`. Tokens of an account whose tokens were revoked since
/// (`auth_time`, else `iat`, before its `validSince`), or that is disabled or deleted, are
/// refused: one in-memory lookup in `revocations`. Never logs or echoes the token.
struct IDTokenVerifier: Sendable {
    /// Seconds an `iat` may lie in the future (clock skew between token issuer and server).
    static let allowedClockSkew: Double = 300

    let key: SymmetricKey?
    let allowUnsigned: Bool
    let now: @Sendable () -> Double
    let revocations: RevocationRegistry?

    init(
        secret: String?,
        allowUnsigned: Bool,
        revocations: RevocationRegistry? = nil,
        now: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 }
    ) {
        self.key = secret.flatMap { $0.isEmpty ? nil : SymmetricKey(data: Array($0.utf8)) }
        self.allowUnsigned = allowUnsigned
        self.revocations = revocations
        self.now = now
    }

    /// The token's claims, or `RESTError.unparsableToken` / `.expiredToken`.
    func verify(_ token: String) throws(RESTError) -> UserClaims {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3,
            let headerBytes = Base64URL.decode(parts[0]),
            let payloadBytes = Base64URL.decode(parts[1]),
            let header = Self.object(headerBytes),
            let algorithm = header["alg"] as? String
        else { throw .unparsableToken }

        let signed: Bool
        switch algorithm {
        case "HS256":
            guard let key, let signature = Base64URL.decode(parts[2]) else { throw .unparsableToken }
            let message = Array(token.utf8.prefix(parts[0].utf8.count + 1 + parts[1].utf8.count))
            guard HMAC<SHA256>.isValidAuthenticationCode(signature, authenticating: message, using: key) else {
                throw .unparsableToken
            }
            signed = true
        case "none":
            guard allowUnsigned else { throw .unparsableToken }
            signed = false
        default:
            throw .unparsableToken
        }

        guard let payload = Self.object(payloadBytes) else { throw .unparsableToken }
        let current = now()
        let exp = Self.number(payload["exp"])
        if signed, exp == nil { throw .unparsableToken }
        if let exp, exp <= current { throw .expiredToken }
        if payload["iat"] != nil {
            guard let iat = Self.number(payload["iat"]), iat <= current + Self.allowedClockSkew else {
                throw .unparsableToken
            }
        }
        let uid = (payload["user_id"] as? String) ?? (payload["sub"] as? String)
        guard let uid, !uid.isEmpty else { throw .unparsableToken }
        if let revocations {
            let signedInAt = Self.number(payload["auth_time"]) ?? Self.number(payload["iat"]) ?? 0
            if revocations.status(uid: uid, authTime: Int64(signedInAt)) != .valid { throw .revokedToken }
        }
        let provider = (payload["firebase"] as? [String: Any])?["sign_in_provider"] as? String
        return UserClaims(uid: uid, provider: provider, claimsJSON: payloadBytes)
    }

    private static func object(_ bytes: [UInt8]) -> [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(bytes))) as? [String: Any]
    }

    private static func number(_ value: Any?) -> Double? {
        guard let number = value as? NSNumber, !(value is Bool) else { return nil }
        return number.doubleValue
    }
}
