import Synchronization

/// Signed ID tokens that passed every check of their text (`IDTokenVerifier`): a REST client
/// sends the same token with every request for up to an hour, and its base64, HMAC and JSON
/// need checking once. Only what the text alone decides is kept; the clock and revocations are
/// asked again at every use, so a kept token answers exactly as a fresh check would.
///
/// Bounded: at most `capacity` tokens, forgotten all at once when it is reached. A token that
/// failed any check is never kept, so a stranger's guesses cost memory nothing.
final class VerifiedTokenCache: Sendable {
    static let capacity = 4_096

    /// What a token's text gave: the verified token and the times re-checked at each use.
    struct Known: Sendable {
        let token: VerifiedIDToken
        /// `iat`, as sent.
        let issuedAt: Double
        /// `nbf`, when sent.
        let notBefore: Double?
    }

    private let known = Mutex<[String: Known]>([:])

    func lookup(_ token: String) -> Known? {
        known.withLock { $0[token] }
    }

    func remember(_ token: String, _ entry: Known) {
        known.withLock { known in
            if known.count >= Self.capacity { known.removeAll(keepingCapacity: true) }
            known[token] = entry
        }
    }

    var count: Int { known.withLock { $0.count } }
}
