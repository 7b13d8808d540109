import HearthCore
import HearthProtocol

extension RealtimeConnection {
    /// The ticker's round: liveness, the auth-or-listen deadline, then the session's own tick
    /// (credential expiry), which a busy connection gets at its next tick.
    /// - Parameter holdsOnDisconnect: whether the connection holds onDisconnect operations
    ///   (asked only when the deadline has passed).
    mutating func tick(now: Timestamp, holdsOnDisconnect: () -> Bool) {
        guard !finished else { return }
        let ms = now.millisecondsSince1970
        if nextPeerCheck > 0, ms >= nextPeerCheck { checkPeer(now) }
        if authOrListenDeadline > 0, let timeout = limits.authOrListenTimeout {
            let next = ms + Self.milliseconds(timeout)
            if requestSinceTick {
                requestSinceTick = false
                authOrListenDeadline = next
            } else if ms >= authOrListenDeadline, !busy,
                // An `auth` may be in flight or queued: checked again once it is answered.
                sessionState.pendingRequestCount == 0
            {
                if sessionState.identity.role == .anonymous, sessionState.listenCount == 0, !holdsOnDisconnect() {
                    authOrListenDeadline = 0
                    let seconds = timeout.components.seconds
                    receive(.fail(.policyViolation, "No auth, listen or request within \(seconds) seconds."))
                    return
                }
                // Checked again later: credentials expire, listens and onDisconnect operations end.
                authOrListenDeadline = next
            }
        }
        guard !busy else { return }
        receive(.tick(now))
    }

    /// Pings a connection that was silent for a whole interval; drops it when it stays silent
    /// for another (a peer that vanished without closing TCP).
    private mutating func checkPeer(_ now: Timestamp) {
        guard let interval = limits.pingInterval else { return }
        nextPeerCheck = now.millisecondsSince1970 + Self.milliseconds(interval)
        if sawInbound {
            sawInbound = false
            pingSent = false
        } else if pingSent {
            urgent.append(.dropConnection)
        } else if !closeSent {
            pingSent = true
            urgent.append(.sendPing)
            unflushed = true
        }
    }
}
