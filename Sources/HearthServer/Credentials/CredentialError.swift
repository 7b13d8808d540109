import HearthAccounts

/// Why a request's or connection's credential was refused. `ErrorAnswer` words it as Firebase
/// does (`Could not parse auth token.`, `Auth token is expired.`, wire status `expired_token` /
/// `invalid_token`).
struct CredentialError: Error, Sendable, Hashable, CustomStringConvertible {
    enum Reason: Sendable, Hashable {
        /// Not a credential the server can verify: a malformed, forged or unsigned token, an
        /// `Authorization` header that is not `Bearer`, an empty token.
        case unparsable
        /// An ID token whose `exp` has passed.
        case expired
        /// An ID token of an account whose tokens were revoked since it was issued (password or
        /// email changed), or that is disabled or deleted.
        case revoked
    }

    let reason: Reason

    static let unparsable = CredentialError(reason: .unparsable)
    static let expired = CredentialError(reason: .expired)
    static let revoked = CredentialError(reason: .revoked)

    init(reason: Reason) { self.reason = reason }

    /// The database's reading of a refused ID token.
    init(refusing error: IDTokenError) {
        switch error {
        case .malformed: reason = .unparsable
        case .expired: reason = .expired
        case .revoked, .disabled, .deleted: reason = .revoked
        }
    }

    var description: String { ErrorAnswer.credential(self).message }
}
