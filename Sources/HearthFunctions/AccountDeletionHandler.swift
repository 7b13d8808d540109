/// Server-side work that must happen when an account is deleted (`accounts:delete`, by its
/// owner or the admin): removing what the app keeps about the user in a namespace. Called
/// before the account itself is deleted, once per namespace it is registered for; when it
/// throws, the account stays and the request fails, so a retry runs it again. It must therefore
/// be idempotent, and leave the namespace consistent after each of its writes.
public protocol AccountDeletionHandler: Sendable {
    /// Removes what namespace `database` keeps about `uid` (whose account still exists).
    func accountWillBeDeleted(uid: String, in database: CallableDatabase) async throws(CallableError)
    /// The same, with the server's files for what the app keeps there (the default runs the
    /// database-only form).
    func accountWillBeDeleted(
        uid: String,
        in database: CallableDatabase,
        files: (any CallableFiles)?
    ) async throws(CallableError)
}

extension AccountDeletionHandler {
    public func accountWillBeDeleted(
        uid: String,
        in database: CallableDatabase,
        files: (any CallableFiles)?
    ) async throws(CallableError) {
        try await accountWillBeDeleted(uid: uid, in: database)
    }
}
