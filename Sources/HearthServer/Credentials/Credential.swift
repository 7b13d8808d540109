import HearthAccounts

/// Who a request acts as: exactly one of admin, a verified user, or anonymous.
enum Credential: Sendable, Equatable {
    /// The admin secret (or `owner` under `--emulator`): rules do not apply.
    case admin
    /// A verified ID token.
    case user(UserClaims)
    /// No credential: rules see `auth == null`.
    case anonymous
}

/// What a verified ID token says, for rules (`auth.uid`, `auth.provider`, `auth.token`).
struct UserClaims: Sendable, Equatable {
    /// `user_id`, else `sub`.
    var uid: String
    /// `firebase.sign_in_provider`, when present.
    var provider: String?
    /// The token's payload JSON, verbatim: every claim.
    var claimsJSON: [UInt8]
    /// When the credential stops working (seconds since 1970, the token's `exp`); nil: never
    /// (an unsigned `--emulator` token).
    var expiresAt: Double?
    /// When the user signed in (`auth_time`, else `iat`), which a later revocation of the
    /// account's tokens compares against; nil: only the account's disabling or deletion ends it
    /// (an unsigned `--emulator` token).
    var signedInAt: Int64?
}

extension UserClaims {
    /// The claims of a verified ID token.
    init(_ token: VerifiedIDToken) {
        self.init(
            uid: token.uid,
            provider: token.provider,
            claimsJSON: token.claimsJSON,
            expiresAt: token.expiresAt,
            signedInAt: token.signedInAt
        )
    }
}
