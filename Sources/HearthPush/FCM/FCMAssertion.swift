import CryptoExtras
import Foundation

/// The OAuth2 JWT bearer grant's assertion (RFC 7523, Google's "service account" flow): an RS256
/// JWT from the service account to its `token_uri`, for FCM's scope, valid one hour.
enum FCMAssertion {
    /// FCM HTTP v1's OAuth2 scope.
    static let scope = "https://www.googleapis.com/auth/firebase.messaging"
    /// The grant type the assertion is POSTed with.
    static let grantType = "urn:ietf:params:oauth:grant-type:jwt-bearer"
    /// The longest lifetime Google accepts.
    static let lifetime = 3600

    /// The signed JWT, issued at `now`.
    static func make(account: FCMServiceAccount, now: Date) throws -> String {
        let issuedAt = Int(now.timeIntervalSince1970)
        var header = JSONText()
        header.object { fields in
            fields.field("alg", string: "RS256")
            fields.field("typ", string: "JWT")
            fields.field("kid", string: account.privateKeyID)
        }
        var claims = JSONText()
        claims.object { fields in
            fields.field("iss", string: account.clientEmail)
            fields.field("scope", string: scope)
            fields.field("aud", string: account.tokenURI.absoluteString)
            fields.field("iat", integer: issuedAt)
            fields.field("exp", integer: issuedAt + lifetime)
        }
        let signingInput = base64URL(header.bytes) + "." + base64URL(claims.bytes)
        let signature = try account.privateKey.signature(for: Array(signingInput.utf8), padding: .insecurePKCS1v1_5)
        return signingInput + "." + base64URL(signature.rawRepresentation)
    }

    /// The grant's form body: `grant_type` and `assertion`, form-encoded.
    static func formBody(assertion: String) -> String {
        "grant_type=" + formEncoded(grantType) + "&assertion=" + formEncoded(assertion)
    }

    static func base64URL(_ bytes: some Collection<UInt8>) -> String {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// `application/x-www-form-urlencoded`: unreserved characters as they are, the rest %XX.
    static func formEncoded(_ text: String) -> String {
        let allowed = CharacterSet(
            charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~"
        )
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }
}
