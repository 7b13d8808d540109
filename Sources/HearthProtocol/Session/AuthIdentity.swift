public import HearthCore

/// Who a connection acts as: anonymous, an admin (rules do not apply) or a user (rules see
/// `auth`). The session only keeps it and puts it on the actions; the code that verifies
/// credentials builds it.
public struct AuthIdentity: Sendable, Equatable {
    /// The kind of caller.
    public enum Role: Sendable, Equatable {
        case anonymous
        /// Rules do not apply.
        case admin
        /// Rules apply with `auth` = `authVariable`.
        case user
    }

    public var role: Role
    /// The `auth` variable rules see: `{uid, provider, token}` for users, an admin SDK's
    /// `authvar` override, `null` for anonymous callers and admins.
    public var authVariable: JSONValue
    /// When the credential expires (the token's `exp`); nil for credentials that do not.
    public var expiresAt: Timestamp?
    /// Asked on every tick whether the credential was revoked meanwhile (password changed,
    /// account disabled or deleted): the session then sends `ac` and continues anonymously.
    public var revocation: (any CredentialRevocationProbe)?
    /// The uid of the ID token this identity was verified from: a user's own credential (nil for
    /// anonymous callers, the admin and an admin acting as a user). What server-kept presence
    /// counts a connection for.
    public var signedInUID: String?

    public init(role: Role, authVariable: JSONValue = .null, expiresAt: Timestamp? = nil) {
        self.role = role
        self.authVariable = authVariable
        self.expiresAt = expiresAt
    }

    /// No credential: rules see `auth == null`.
    public static let anonymous = AuthIdentity(role: .anonymous)

    /// The admin credential: rules do not apply.
    public static func admin(expiresAt: Timestamp? = nil) -> AuthIdentity {
        AuthIdentity(role: .admin, expiresAt: expiresAt)
    }

    /// A user; `authVariable` is what rules see as `auth`.
    public static func user(authVariable: JSONValue, expiresAt: Timestamp? = nil) -> AuthIdentity {
        AuthIdentity(role: .user, authVariable: authVariable, expiresAt: expiresAt)
    }

    /// True when rules do not apply.
    public var bypassesRules: Bool { role == .admin }

    /// Equal role, `auth` and expiry (the probe and `signedInUID`, which follows from `auth`,
    /// are not compared).
    public static func == (lhs: AuthIdentity, rhs: AuthIdentity) -> Bool {
        lhs.role == rhs.role && lhs.authVariable == rhs.authVariable && lhs.expiresAt == rhs.expiresAt
    }
}

/// Tells whether a verified credential has been revoked since (the accounts store knows).
public protocol CredentialRevocationProbe: Sendable {
    var isRevoked: Bool { get }
}
