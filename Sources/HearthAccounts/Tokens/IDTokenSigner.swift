import Crypto
import Foundation

/// Mints and checks Firebase-shaped ID tokens: HS256 JWTs with `iss`, `aud`, `auth_time`,
/// `user_id`, `sub`, `iat`, `exp`, `email`, `email_verified` and `firebase` (`identities`,
/// `sign_in_provider`), plus `name`/`picture` when the account has them.
struct IDTokenSigner: Sendable {
    let key: SymmetricKey
    let projectID: String
    let lifetime: Int64
    /// Under `--emulator`, unsigned (`alg: none`) tokens are accepted as the emulator's are.
    let allowUnsigned: Bool

    static let header = Base64URL.encode(Array(#"{"alg":"HS256","kid":"hearth","typ":"JWT"}"#.utf8))

    /// A signed token for `account`, issued at `issuedAt` for a sign-in at `authTime` (seconds).
    func token(for account: AccountRecord, provider: String, authTime: Int64, issuedAt: Int64) -> String {
        var identities: [String: Any] = [:]
        if let email = account.email { identities["email"] = [email] }
        var claims: [String: Any] = [
            "iss": "https://securetoken.google.com/\(projectID)",
            "aud": projectID,
            "auth_time": authTime,
            "user_id": account.localId,
            "sub": account.localId,
            "iat": issuedAt,
            "exp": issuedAt + lifetime,
            "firebase": ["identities": identities, "sign_in_provider": provider] as [String: Any],
        ]
        if let email = account.email {
            claims["email"] = email
            claims["email_verified"] = account.emailVerified
        }
        if let name = account.displayName { claims["name"] = name }
        if let picture = account.photoUrl { claims["picture"] = picture }
        if provider == "anonymous" { claims["provider_id"] = "anonymous" }
        let payload = (try? JSONSerialization.data(withJSONObject: claims, options: [.sortedKeys])) ?? Data("{}".utf8)
        let signingInput = Self.header + "." + Base64URL.encode(payload)
        let mac = HMAC<SHA256>.authenticationCode(for: Array(signingInput.utf8), using: key)
        return signingInput + "." + Base64URL.encode(mac)
    }

    /// The claims that matter to the accounts endpoints.
    struct Claims: Sendable {
        var uid: String
        var authTime: Int64
        var issuedAt: Int64
        var provider: String
    }

    /// Checks signature (or unsigned under the emulator) and expiry.
    /// - Throws: `INVALID_ID_TOKEN` or `TOKEN_EXPIRED`.
    func verify(_ token: String, now: Double) throws(AccountsError) -> Claims {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3,
            let headerBytes = Base64URL.decode(parts[0]),
            let payloadBytes = Base64URL.decode(parts[1]),
            let header = Self.object(headerBytes),
            let payload = Self.object(payloadBytes)
        else { throw AccountsError(.invalidIDToken) }
        switch header["alg"] as? String {
        case "HS256":
            let message = Array(token.utf8.prefix(parts[0].utf8.count + 1 + parts[1].utf8.count))
            guard let signature = Base64URL.decode(parts[2]),
                HMAC<SHA256>.isValidAuthenticationCode(signature, authenticating: message, using: key)
            else { throw AccountsError(.invalidIDToken) }
        case "none" where allowUnsigned:
            break
        default:
            throw AccountsError(.invalidIDToken)
        }
        guard let uid = (payload["user_id"] as? String) ?? (payload["sub"] as? String), !uid.isEmpty,
            let issuedAt = Self.integer(payload["iat"])
        else { throw AccountsError(.invalidIDToken) }
        if let exp = Self.integer(payload["exp"]), Double(exp) <= now { throw AccountsError(.tokenExpired) }
        let provider = (payload["firebase"] as? [String: Any])?["sign_in_provider"] as? String ?? "password"
        return Claims(
            uid: uid,
            authTime: Self.integer(payload["auth_time"]) ?? issuedAt,
            issuedAt: issuedAt,
            provider: provider
        )
    }

    private static func object(_ bytes: [UInt8]) -> [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(bytes))) as? [String: Any]
    }

    static func integer(_ value: Any?) -> Int64? {
        guard let number = value as? NSNumber, !(value is Bool) else { return nil }
        return Int64(number.doubleValue)
    }
}
