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
}
