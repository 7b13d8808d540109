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
        if checkPeer(ms) { return }
        if authOrListenDeadline > 0, let timeout = limits.authOrListenTimeout {
            let next = ms + timeout.milliseconds
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

    /// Liveness: drops a connection silent for the whole `livenessTimeout` (true: dropped),
    /// pings one silent for half of it. A connection whose reading is held (its backlog or the
    /// loop's fan-out) is not silent: its frames wait in the socket. The drop comes at the
    /// second tick that finds the timeout passed: a loop kept busy past a tick runs that tick
    /// before it reads what waited in its sockets meanwhile, so one tick alone could take a
    /// talking client for a silent one.
    private mutating func checkPeer(_ ms: Int64) -> Bool {
        guard let timeout = limits.livenessTimeout else { return false }
        if sawInbound || readHeld {
            sawInbound = false
            pingSent = false
            silenceSeen = false
            lastHeard = ms
            return false
        }
        let silent = ms - lastHeard
        let limit = timeout.milliseconds
        if silent >= limit {
            guard silenceSeen else {
                silenceSeen = true
                return false
            }
            urgent.append(.dropConnection)
            return true
        }
        if silent >= limit / 2, !pingSent, !closeSent {
            pingSent = true
            urgent.append(.sendPing)
            unflushed = true
        }
        return false
    }
}
