/// Where a call is in its life (`../shared/CONTRACT.md`, `calls/$callId/state`):
/// `ringing` → `accepted` (answerCall) → `ended` (endCall by either party); or, from `ringing`,
/// `declined` (declineCall), `cancelled` (endCall by the caller) or `missed` (the server, 45 s
/// after `createdAt`). The last four are final: the call is over and its chat has a `kind:
/// "call"` message saying how it ended.
enum CallState: String, Sendable {
    case ringing
    case accepted
    case declined
    case missed
    case cancelled
    case ended

    /// Whether the call is over (nothing moves it on).
    var isOver: Bool {
        switch self {
        case .ringing, .accepted: return false
        case .declined, .missed, .cancelled, .ended: return true
        }
    }
}
