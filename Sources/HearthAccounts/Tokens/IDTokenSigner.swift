import Crypto
import Foundation

/// Mints Firebase-shaped ID tokens: HS256 JWTs with `iss`, `aud`, `auth_time`, `user_id`,
/// `sub`, `iat`, `exp`, `email`, `email_verified` and `firebase` (`identities`,
/// `sign_in_provider`), plus `name`/`picture` when the account has them and its custom claims. `IDTokenVerifier`
/// checks them.
struct IDTokenSigner: Sendable {
    let key: SymmetricKey
    let projectID: String
    let lifetime: Int64

    /// A signer with `secret` (UTF-8) as the HS256 key.
    init(secret: String, projectID: String, lifetime: Int64) {
        key = SymmetricKey(data: Array(secret.utf8))
        self.projectID = projectID
        self.lifetime = lifetime
    }

    static let header = Base64URL.encode(Array(#"{"alg":"HS256","kid":"hearth","typ":"JWT"}"#.utf8))

    /// A signed token for `account`, issued at `issuedAt` for a sign-in at `authTime` (seconds).
    func token(for account: AccountRecord, provider: String, authTime: Int64, issuedAt: Int64) -> String {
        var identities: [String: Any] = [:]
        if let email = account.email { identities["email"] = [email] }
        // Custom claims first: the token's own claims win over any of the same name.
        var claims = CustomClaims.object(account.customAttributes)
        let standard: [String: Any] = [
            "iss": "https://securetoken.google.com/\(projectID)",
            "aud": projectID,
            "auth_time": authTime,
            "user_id": account.localId,
            "sub": account.localId,
            "iat": issuedAt,
            "exp": issuedAt + lifetime,
            "firebase": ["identities": identities, "sign_in_provider": provider] as [String: Any],
        ]
        claims.merge(standard) { $1 }
        if let email = account.email {
            claims["email"] = email
            claims["email_verified"] = account.emailVerified
        }
        if let name = account.displayName { claims["name"] = name }
        if let picture = account.photoUrl { claims["picture"] = picture }
        if provider == "anonymous" { claims["provider_id"] = "anonymous" }
        return sign(claims)
    }

    /// A token with exactly `claims`, signed HS256.
    func sign(_ claims: [String: Any]) -> String {
        let payload = (try? JSONSerialization.data(withJSONObject: claims, options: [.sortedKeys])) ?? Data("{}".utf8)
        let signingInput = Self.header + "." + Base64URL.encode(payload)
        let mac = HMAC<SHA256>.authenticationCode(for: Array(signingInput.utf8), using: key)
        return signingInput + "." + Base64URL.encode(mac)
    }
}
