import Foundation

/// Settings of the accounts store: password hashing cost, token lifetimes, abuse limits.
public struct AccountsConfiguration: Sendable {
    /// scrypt cost. Production: N=2^15, r=8, p=1 (32 MiB and ~70 ms per hash on one core).
    public var scrypt: ScryptParameters
    /// Threads that run password hashes (default: one fewer than the cores, at least one: scrypt
    /// is memory-bound, and a second hashing thread on 2 cores raised the realtime p99 by
    /// ~10 ms); each holds `scrypt.memoryBytes` while it works.
    public var hashingThreads: Int
    /// Hashes waiting for a thread before new ones are refused as `TOO_MANY_ATTEMPTS_TRY_LATER`.
    public var maxQueuedHashes: Int
    /// `iss` is `https://securetoken.google.com/<projectID>`, `aud` is `projectID`.
    public var projectID: String
    /// Lifetime of ID tokens in seconds (Firebase: one hour).
    public var idTokenLifetime: Int64
    /// Lifetime of password-reset codes in seconds (Firebase: one hour).
    public var resetCodeLifetime: Int64
    /// Shortest accepted password (Firebase: 6).
    public var minimumPasswordLength: Int
    /// Failed sign-ins allowed per account (normalised email) from one client address within
    /// `failureWindow`; past it that address is refused for that account. Other addresses are
    /// not: nobody can lock someone else out by failing on purpose. Past it across all
    /// addresses, every sign-in of the account is slowed down instead (`failureDelayStep`).
    public var failuresPerAccount: Int
    /// Failed sign-ins allowed per client address within `failureWindow`.
    public var failuresPerAddress: Int
    /// Seconds over which failures count; an address or account that reached its limit is
    /// refused until the window that started with its first failure has passed.
    public var failureWindow: Double
    /// Seconds each failure past `failuresPerAccount` (all addresses together) adds before an
    /// account's sign-in is answered, up to `maxFailureDelay`: a guessing attack spread over
    /// many addresses slows down, and the owner still signs in.
    public var failureDelayStep: Double
    public var maxFailureDelay: Double
    /// Waits that many seconds (the slow-down); injectable for tests.
    public var delay: @Sendable (Double) async -> Void
    /// Firebase's email-enumeration protection: a wrong email and a wrong password both answer
    /// `INVALID_LOGIN_CREDENTIALS`, and `sendOobCode` succeeds for unknown emails. Off (as in
    /// the Firebase emulator's default project): `EMAIL_NOT_FOUND` / `INVALID_PASSWORD`.
    public var emailEnumerationProtection: Bool
    /// How long a live realtime connection (WebSocket, SSE) signed in before its owner changed
    /// the password or email through `accounts:update` keeps its authentication. That call
    /// answers with new tokens; the Firebase SDK adopts them and re-authenticates the connection
    /// itself. Revoking the connection at once made the database SDK refresh with the old,
    /// revoked refresh token before the Auth SDK had read the answer, and sign the user out.
    /// REST requests and new connections refuse the old token at once; admin changes, password
    /// resets, disabling and deleting revoke live connections at once.
    public var liveSessionGrace: Duration
    /// Seconds since 1970; injectable for tests.
    public var now: @Sendable () -> Double

    public init(
        scrypt: ScryptParameters = .production,
        hashingThreads: Int? = nil,
        maxQueuedHashes: Int = 256,
        projectID: String = "hearth",
        idTokenLifetime: Int64 = 3600,
        resetCodeLifetime: Int64 = 3600,
        minimumPasswordLength: Int = 6,
        failuresPerAccount: Int = 10,
        failuresPerAddress: Int = 100,
        failureWindow: Double = 600,
        failureDelayStep: Double = 0.25,
        maxFailureDelay: Double = 2,
        delay: (@Sendable (Double) async -> Void)? = nil,
        emailEnumerationProtection: Bool = true,
        liveSessionGrace: Duration = .seconds(1),
        now: (@Sendable () -> Double)? = nil
    ) {
        self.scrypt = scrypt
        self.hashingThreads = hashingThreads ?? max(1, ProcessInfo.processInfo.activeProcessorCount - 1)
        self.maxQueuedHashes = maxQueuedHashes
        self.projectID = projectID
        self.idTokenLifetime = idTokenLifetime
        self.resetCodeLifetime = resetCodeLifetime
        self.minimumPasswordLength = minimumPasswordLength
        self.failuresPerAccount = failuresPerAccount
        self.failuresPerAddress = failuresPerAddress
        self.failureWindow = failureWindow
        self.failureDelayStep = failureDelayStep
        self.maxFailureDelay = maxFailureDelay
        self.delay = delay ?? { seconds in try? await Task.sleep(for: .milliseconds(Int(seconds * 1000))) }
        self.emailEnumerationProtection = emailEnumerationProtection
        self.liveSessionGrace = liveSessionGrace
        self.now = now ?? { Date().timeIntervalSince1970 }
    }
}

/// scrypt's cost parameters (RFC 7914).
public struct ScryptParameters: Sendable, Equatable, Codable {
    /// log2 of N, the CPU/memory cost.
    public var logN: Int
    /// Block size r.
    public var blockSize: Int
    /// Parallelism p.
    public var parallelism: Int

    public init(logN: Int, blockSize: Int, parallelism: Int) {
        self.logN = logN
        self.blockSize = blockSize
        self.parallelism = parallelism
    }

    /// N=2^15, r=8, p=1.
    public static let production = ScryptParameters(logN: 15, blockSize: 8, parallelism: 1)
    /// N=2^4: for tests only, never for real passwords.
    public static let testing = ScryptParameters(logN: 4, blockSize: 8, parallelism: 1)

    /// Memory one hash needs: 128 · r · N bytes.
    public var memoryBytes: Int { 128 * blockSize * (1 << logN) }
}
