extension RESTError {
    /// An ID token of an account whose tokens were revoked since it was issued (password or
    /// email changed), or that is disabled or deleted.
    static let revokedToken = RESTError(.unauthorized, "Auth token is revoked: sign in again.")
}
