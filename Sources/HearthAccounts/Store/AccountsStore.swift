import Foundation
public import Logging

/// Hearth's email/password accounts: sign-up, sign-in, tokens, profile changes, password
/// reset and revocation, stored in `<data>/accounts/` (its own LevelDB database, outside the
/// JSON tree). Passwords are hashed with scrypt on a bounded thread pool; tokens and codes
/// are stored only as SHA-256 digests; nothing secret is logged.
public final class AccountsStore: Sendable {
    public let configuration: AccountsConfiguration
    /// The in-memory revocation state that ID-token verification consults.
    public let revocations: RevocationRegistry
    /// Where password-reset messages are written.
    public var outboxPath: String { outbox.path }
    let database: AccountsDatabase
    let hasher: PasswordHasher
    let signer: IDTokenSigner?
    /// Checks the ID tokens the endpoints are given, as the database checks them.
    let verifier: IDTokenVerifier
    let outbox: ResetOutbox
    /// Failures per (account, client address): past the limit, that address is refused for
    /// that account.
    let accountFailures: FailureLimiter
    /// Failures per account from every address: past the limit, its sign-ins slow down.
    let accountFailuresEverywhere: FailureLimiter
    let addressFailures: FailureLimiter
    let logger: Logger

    /// The subdirectory of a data directory that holds the accounts.
    public static func directory(inDataDirectory data: String) -> String { data + "/accounts" }

    /// Opens (creating) the accounts in `directory`.
    /// - Parameters:
    ///   - jwtSecret: HS256 key of ID tokens; nil refuses every operation that issues or
    ///     checks a token (the CLI's admin commands need none).
    ///   - emulator: accept unsigned (`alg: none`) ID tokens and tokens of any project (`--emulator`).
    public init(
        directory: String,
        jwtSecret: String?,
        emulator: Bool = false,
        configuration: AccountsConfiguration = AccountsConfiguration(),
        logger: Logger
    ) throws(AccountsError) {
        self.configuration = configuration
        self.logger = logger
        database = try AccountsDatabase(directory: directory)
        hasher = PasswordHasher(
            parameters: configuration.scrypt,
            threads: configuration.hashingThreads,
            maxQueued: configuration.maxQueuedHashes
        )
        signer = jwtSecret.flatMap { secret in
            secret.isEmpty
                ? nil
                : IDTokenSigner(
                    secret: secret,
                    projectID: configuration.projectID,
                    lifetime: configuration.idTokenLifetime
                )
        }
        outbox = ResetOutbox(path: directory + "/outbox.jsonl")
        accountFailures = FailureLimiter(limit: configuration.failuresPerAccount, window: configuration.failureWindow)
        accountFailuresEverywhere = FailureLimiter(
            limit: configuration.failuresPerAccount,
            window: configuration.failureWindow
        )
        addressFailures = FailureLimiter(limit: configuration.failuresPerAddress, window: configuration.failureWindow)
        let revocations = RevocationRegistry()
        self.revocations = revocations
        verifier = IDTokenVerifier(
            secret: jwtSecret,
            emulator: emulator,
            projectID: configuration.projectID,
            revocations: revocations,
            now: configuration.now
        )
        loadRevocations()
    }

    /// Calls `handler` after each committed revocation (see `RevocationRegistry.onRevoke`).
    public func onRevoke(_ handler: @escaping @Sendable (Revocation) -> Void) {
        revocations.onRevoke(handler)
    }

    /// Stops the hashing threads and closes the database.
    public func close() {
        hasher.shutdown()
        database.close()
    }

    // MARK: time

    var nowSeconds: Double { configuration.now() }
    var nowMillis: Int64 { Int64(configuration.now() * 1000) }
    var wholeSeconds: Int64 { Int64(configuration.now().rounded(.down)) }

    // MARK: shared steps

    func requireSigner() throws(AccountsError) -> IDTokenSigner {
        guard let signer else {
            throw AccountsError(.operationNotAllowed, "The server has no JWT secret to sign ID tokens with")
        }
        return signer
    }

    /// The email of a request, normalised. - Throws: `MISSING_EMAIL`, `INVALID_EMAIL`.
    static func email(_ raw: String?) throws(AccountsError) -> String {
        guard let raw, !raw.isEmpty else { throw AccountsError(.missingEmail) }
        guard let email = EmailAddress.normalize(raw) else { throw AccountsError(.invalidEmail) }
        return email
    }

    func checkStrength(_ password: String) throws(AccountsError) {
        if password.utf16.count < configuration.minimumPasswordLength {
            throw .weakPassword(minimum: configuration.minimumPasswordLength)
        }
    }

    /// The account an ID token belongs to, if the token is still good (`IDTokenVerifier`, then
    /// the stored account).
    /// - Throws: `INVALID_ID_TOKEN`, `TOKEN_EXPIRED` (also when revoked), `USER_NOT_FOUND`,
    ///   `USER_DISABLED`.
    func authenticate(_ idToken: String?) throws(AccountsError) -> (AccountRecord, VerifiedIDToken) {
        guard let idToken, !idToken.isEmpty else { throw AccountsError(.missingIDToken) }
        _ = try requireSigner()
        let token: VerifiedIDToken
        do {
            token = try verifier.verify(idToken)
        } catch {
            throw AccountsError(refusing: error)
        }
        guard let account = database.account(uid: token.uid) else { throw AccountsError(.userNotFound) }
        if account.disabled { throw AccountsError(.userDisabled) }
        if let signedIn = token.signedInAt, signedIn < account.validSince { throw AccountsError(.tokenExpired) }
        return (account, token)
    }

    /// Signs an ID token and creates a refresh token for `account`, adding the refresh
    /// record to `changes`.
    func issue(
        _ account: AccountRecord,
        provider: String,
        authTime: Int64,
        into changes: inout AccountsDatabase.Changes
    ) throws(AccountsError) -> SignInResult {
        let signer = try requireSigner()
        let refreshToken = Secrets.randomToken()
        let digest = Secrets.digestHex(refreshToken)
        try changes.put(
            AccountsDatabase.refreshKey(digest),
            RefreshRecord(uid: account.localId, authTime: authTime, provider: provider)
        )
        changes.put(AccountsDatabase.userRefreshKey(account.localId, digest), text: "")
        let idToken = signer.token(
            for: account,
            provider: provider,
            authTime: authTime,
            issuedAt: max(wholeSeconds, authTime)
        )
        return SignInResult(
            account: account,
            idToken: idToken,
            refreshToken: refreshToken,
            expiresIn: configuration.idTokenLifetime
        )
    }

    /// Applies a revocation to the in-memory registry and tells the observers; live
    /// connections keep their authentication for `liveGrace`.
    /// Sets `account`'s revocation entry once `changes` commit, on the accounts' writer: entries
    /// reach the registry in commit order (two changes of one account set after their writes
    /// returned could land in the other order: a delete overwritten by an earlier update left
    /// the deleted account's tokens good until a restart).
    func updateRevocation(
        of account: AccountRecord,
        liveGrace: Duration = .zero,
        in changes: inout AccountsDatabase.Changes
    ) {
        let entry = RevocationRegistry.entry(for: account, liveGrace: liveGrace)
        changes.onCommit { [revocations, uid = account.localId] in revocations.set(uid, entry) }
    }

    /// Tells the revocation's listeners (after `updateRevocation`'s commit).
    func revoked(_ account: AccountRecord, reason: RevocationReason) {
        revocations.publish(Revocation(uid: account.localId, validSince: account.validSince, reason: reason))
        logger.info(
            "account tokens revoked",
            metadata: ["hearth.uid": "\(account.localId)", "hearth.reason": "\(reason.rawValue)"]
        )
    }
}

/// Tokens for a signed-in account.
public struct SignInResult: Sendable {
    public var account: AccountRecord
    public var idToken: String
    public var refreshToken: String
    /// Seconds until `idToken` expires.
    public var expiresIn: Int64
}
