/// Delivers one push to one device: FCM (`FCMProvider`) or the webhook (`WebhookProvider`).
///
/// The delivery worker calls `send` once per attempt and acts on the outcome: it marks the push
/// done on `.accepted`, removes the device on `.unregistered`, schedules another attempt by
/// `PushRetryPolicy` on `.retry` and drops the push on `.rejected`. A provider never throws and
/// never retries by itself (apart from FCM's one new access token after a 401), so every attempt
/// is the worker's to count.
public protocol PushProvider: Sendable {
    func send(_ push: PushMessage) async -> PushOutcome
}

/// What became of one attempt at a push.
public enum PushOutcome: Sendable, Hashable {
    /// The provider took the push: it is delivered, never to be sent again.
    case accepted
    /// The token is dead (the app was uninstalled, the token belongs to another project): the
    /// worker removes the device.
    case unregistered(PushFailureReason)
    /// Transient (no answer, a timeout, a 5xx, a 429, credentials refused): try again, not before
    /// `after` when the provider said so (`Retry-After`).
    case retry(PushFailureReason, after: Duration?)
    /// Permanent for this push (a payload the provider refuses), but the device stays.
    case rejected(PushFailureReason)

    /// The reason of any outcome but `.accepted`.
    public var reason: PushFailureReason? {
        switch self {
        case .accepted: nil
        case .unregistered(let reason), .retry(let reason, _), .rejected(let reason): reason
        }
    }
}
