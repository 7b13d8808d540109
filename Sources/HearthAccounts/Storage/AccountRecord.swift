/// One account as stored. Times are milliseconds since 1970 except `validSince` (seconds,
/// as in Firebase): ID and refresh tokens whose `auth_time` is earlier are revoked.
public struct AccountRecord: Sendable, Equatable, Codable {
    public var localId: String
    /// Normalised; nil for an anonymous account.
    public var email: String?
    public var emailVerified: Bool
    public var displayName: String?
    public var photoUrl: String?
    /// nil for an anonymous account (or after `deleteAttribute: PASSWORD`).
    public var password: PasswordHash?
    public var passwordUpdatedAt: Int64?
    public var validSince: Int64
    public var disabled: Bool
    public var createdAt: Int64
    public var lastLoginAt: Int64?
    public var lastRefreshAt: Int64?
    /// Custom claims (Firebase's `customAttributes`): a JSON object's text, set by the admin
    /// (`CustomClaims`); nil when there are none.
    public var customAttributes: String?

    /// `password` or `anonymous`: how this account signs in.
    public var provider: String { email == nil && password == nil ? "anonymous" : "password" }
}

/// What a refresh token (stored only as its SHA-256) stands for.
struct RefreshRecord: Sendable, Codable {
    var uid: String
    /// The sign-in this token continues, seconds: becomes the `auth_time` of refreshed ID tokens.
    var authTime: Int64
    var provider: String
}

/// A password-reset code (stored only as its SHA-256).
struct ResetCodeRecord: Sendable, Codable {
    var uid: String
    var email: String
    /// Seconds since 1970.
    var expiresAt: Int64
}

/// Left behind by a deleted account so that its earlier tokens stay revoked.
struct Tombstone: Sendable, Codable {
    /// Seconds since 1970.
    var deletedAt: Int64
}
