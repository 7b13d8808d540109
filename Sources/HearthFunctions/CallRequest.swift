public import HearthAccounts
public import HearthCore
public import HearthDatabase

/// One call of a callable: the decoded `data`, the verified caller, and the database of the
/// namespace the call selected (`?ns=`).
public struct CallRequest: Sendable {
    /// The request's `data` (long integers the SDKs send as `Int64Value` objects are numbers).
    public let data: JSONValue
    /// Who calls: a signed-in user, or the admin credential (never anonymous: the server
    /// answers `UNAUTHENTICATED` before the callable runs).
    public let caller: Caller
    /// Reads and atomic writes in the namespace the call selected.
    public let database: CallableDatabase
    /// The accounts of the server, to tell registered users from made-up uids.
    public let accounts: AccountsStore
    /// The server's files, for what a change leaves behind; nil where there are none (a test
    /// harness without storage).
    public let files: (any CallableFiles)?

    public init(
        data: JSONValue,
        caller: Caller,
        database: CallableDatabase,
        accounts: AccountsStore,
        files: (any CallableFiles)? = nil
    ) {
        self.data = data
        self.caller = caller
        self.database = database
        self.accounts = accounts
        self.files = files
    }

    /// The signed-in caller's uid.
    /// - Throws: `UNAUTHENTICATED` when the call is not made by a signed-in user (the admin
    ///   credential has no uid).
    public func signedInUID() throws(CallableError) -> String {
        guard let uid = caller.auth?.uid, !uid.isEmpty else {
            throw CallableError(
                .unauthenticated,
                "This function needs a signed-in user: send 'Authorization: Bearer <ID token>' (the admin credential has no uid)."
            )
        }
        guard KeyValidator.isValid(uid) else {
            throw CallableError(.invalidArgument, "The caller's uid '\(uid.prefix(64))' cannot be a database key.")
        }
        return uid
    }
}
