/// A stored password: scrypt's parameters, the per-user salt and the derived key.
public struct PasswordHash: Sendable, Equatable, Codable {
    public var algorithm: String
    public var parameters: ScryptParameters
    /// 16 random bytes, base64url.
    public var salt: String
    /// 32 derived bytes, base64url.
    public var key: String

    static let scryptAlgorithm = "scrypt"
    static let saltBytes = 16
    static let keyBytes = 32
}
