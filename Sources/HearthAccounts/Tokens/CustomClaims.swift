import Foundation

/// An account's custom claims (Firebase's `customAttributes`): a JSON object of at most
/// `maxBytes`, set only by the admin, copied into every ID token issued afterwards, where rules
/// read them as `auth.token.<claim>`.
public enum CustomClaims {
    /// Firebase's bound on the serialized claims.
    public static let maxBytes = 1_000

    /// Names a custom claim may not take: the JWT's and Firebase's own (as Firebase refuses
    /// them), and `user_id`, which Hearth reads as the uid.
    public static let reserved: Set<String> = [
        "acr", "amr", "at_hash", "aud", "auth_time", "azp", "cnf", "c_hash", "exp", "firebase", "iat", "iss",
        "jti", "nbf", "nonce", "sub", "user_id",
    ]

    /// The claims to store for `customAttributes` as `accounts:update` receives it: the text
    /// itself, or nil (no claims) for `{}` or an empty string.
    /// - Throws: `CLAIMS_TOO_LARGE` over `maxBytes`, `INVALID_CLAIMS` for anything but a JSON
    ///   object, `FORBIDDEN_CLAIM : <name>` for a reserved name.
    public static func validated(_ text: String) throws(AccountsError) -> String? {
        let bytes = Array(text.utf8)
        guard bytes.count <= maxBytes else {
            throw AccountsError(
                .claimsTooLarge,
                "customAttributes is \(bytes.count) bytes; custom claims may take at most \(maxBytes)"
            )
        }
        if text.allSatisfy(\.isWhitespace) { return nil }
        guard let object = parse(bytes) else {
            throw AccountsError(
                .invalidClaims,
                #"customAttributes must be a JSON object as a string, e.g. "{\"admin\": true}""#
            )
        }
        if let name = object.keys.filter(reserved.contains).sorted().first {
            throw AccountsError(.forbiddenClaim, name)
        }
        return object.isEmpty ? nil : text
    }

    /// The stored claims as an object (empty when there are none).
    static func object(_ text: String?) -> [String: Any] {
        text.flatMap { parse(Array($0.utf8)) } ?? [:]
    }

    private static func parse(_ bytes: [UInt8]) -> [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])) as? [String: Any]
    }
}
