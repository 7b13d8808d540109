import HearthProtocol

/// One WebSocket connection's part in server-kept presence: the seat it holds in
/// `PresenceTracker` while its session acts as a user (from `auth` until `unauth`, expiry,
/// revocation, another user's `auth` or the connection's end). Once ended, a late identity
/// change (a request still queued when the socket went) counts nothing.
struct RealtimePresence {
    private var seat: PresenceTracker.Seat?
    private var ended = false

    /// The session acts as `identity` now.
    mutating func identify(_ identity: AuthIdentity, namespace: String, in tracker: PresenceTracker) {
        guard !ended else { return }
        if let seat, seat.key.uid == identity.signedInUID { return }
        // The new seat first: a user re-authenticating never drops to zero connections.
        let next = tracker.join(identity, namespace: namespace)
        if let seat { tracker.leave(seat) }
        seat = next
    }

    /// The connection ended (close frame, FIN, reset, liveness timeout, server close).
    mutating func end(_ tracker: PresenceTracker) {
        guard !ended else { return }
        ended = true
        if let seat { tracker.leave(seat) }
        seat = nil
    }
}
