import Synchronization

/// Why a uid's earlier tokens stopped working.
public enum RevocationReason: String, Sendable, Equatable {
    case passwordChanged = "password_changed"
    case emailChanged = "email_changed"
    case disabled
    case deleted
}

/// A uid whose tokens issued (signed in) before `validSince` no longer verify.
public struct Revocation: Sendable, Equatable {
    public var uid: String
    /// Seconds since 1970: tokens whose `auth_time` is earlier are revoked; for `disabled` and
    /// `deleted`, every token of the uid is.
    public var validSince: Int64
    public var reason: RevocationReason
}

/// The in-memory answer to "is this token revoked?", kept in step with the accounts store:
/// O(1) per check, no I/O. Only uids that ever had tokens revoked, are disabled or were
/// deleted have an entry; tokens of other uids (including ones minted outside Hearth with the
/// JWT secret) are never revoked here.
public final class RevocationRegistry: Sendable {
    /// Outcome of a check.
    public enum Status: Sendable, Equatable {
        case valid
        /// Signed in before the account's `validSince`.
        case revoked
        case disabled
        case deleted
    }

    struct Entry: Sendable, Equatable {
        var validSince: Int64
        var disabled: Bool
        var deleted: Bool
        /// Until then, live connections signed in before `validSince` stay authenticated.
        var liveUntil: ContinuousClock.Instant? = nil
    }

    private let entries = Mutex<[String: Entry]>([:])
    private let handlers = Mutex<[@Sendable (Revocation) -> Void]>([])

    public init() {}

    /// Whether a token of `uid` signed in at `authTime` (seconds; `iat` when there is no
    /// `auth_time`) is still good.
    public func status(uid: String, authTime: Int64) -> Status {
        guard let entry = entries.withLock({ $0[uid] }) else { return .valid }
        if entry.deleted { return .deleted }
        if entry.disabled { return .disabled }
        return authTime < entry.validSince ? .revoked : .valid
    }

    /// `status` for a live connection that verified its token earlier: a token revoked by its
    /// owner's password or email change stays `.valid` for the revocation's `liveGrace`.
    public func liveStatus(uid: String, authTime: Int64) -> Status {
        let status = status(uid: uid, authTime: authTime)
        guard status == .revoked, let until = entries.withLock({ $0[uid]?.liveUntil }) else { return status }
        return ContinuousClock.now < until ? .valid : .revoked
    }

    /// Calls `handler` after every revocation is committed (password change, email change,
    /// disable, delete), on the task that committed it. Keep it short and non-blocking.
    public func onRevoke(_ handler: @escaping @Sendable (Revocation) -> Void) {
        handlers.withLock { $0.append(handler) }
    }

    func set(_ uid: String, _ entry: Entry?) {
        entries.withLock { $0[uid] = entry }
    }

    func removeAll() {
        entries.withLock { $0.removeAll() }
    }

    func publish(_ revocation: Revocation) {
        for handler in handlers.withLock({ $0 }) { handler(revocation) }
    }

    /// The entry an account needs, or nil when none of its tokens were ever revoked.
    static func entry(for account: AccountRecord, liveGrace: Duration = .zero) -> Entry? {
        let createdSeconds = account.createdAt / 1000
        guard account.disabled || account.validSince > createdSeconds else { return nil }
        let liveUntil = liveGrace > .zero ? ContinuousClock.now.advanced(by: liveGrace) : nil
        return Entry(validSince: account.validSince, disabled: account.disabled, deleted: false, liveUntil: liveUntil)
    }
}
