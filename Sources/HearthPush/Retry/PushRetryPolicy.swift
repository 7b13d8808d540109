public import Foundation

/// When to try a push again after an attempt failed, and when to give up: the first retry within
/// `firstDelay` (2 s), then doubling up to `maximumDelay` (10 minutes) apart, each wait jittered
/// between half of it and all of it, for `window` (24 h) from the push's creation; after that the
/// push is dropped as `expired`. A provider's `after` hint (`Retry-After`) is honoured: the wait is
/// never shorter than the hint, nor longer than `maximumDelay`.
///
/// Pure: it decides from the times and the random numbers it is given.
public struct PushRetryPolicy: Sendable, Hashable {
    /// The longest wait before the first retry (it falls between half of this and all of it).
    public var firstDelay: Duration
    /// The longest wait between two attempts, hint or not.
    public var maximumDelay: Duration
    /// How long after its creation a push is still tried.
    public var window: Duration

    public init(
        firstDelay: Duration = .seconds(2),
        maximumDelay: Duration = .seconds(600),
        window: Duration = .seconds(86_400)
    ) {
        self.firstDelay = firstDelay
        self.maximumDelay = maximumDelay
        self.window = window
    }

    /// What is wrong with these settings, or nil.
    public var problem: String? {
        if firstDelay <= .zero {
            return "The push retry policy's firstDelay '\(firstDelay)' must be positive."
        }
        if maximumDelay < firstDelay {
            return
                "The push retry policy's maximumDelay '\(maximumDelay)' must be at least its firstDelay '\(firstDelay)'."
        }
        if window <= .zero { return "The push retry policy's window '\(window)' must be positive." }
        return nil
    }

    /// What to do with a push after a failed attempt.
    public enum Decision: Sendable, Hashable {
        /// Attempt it again at this time.
        case retry(at: Date)
        /// Drop it: its window ran out (`PushFailureReason.expired`).
        case expire
    }

    /// The decision after `failedAttempts` attempts failed (1 after the first), the last at `now`.
    /// - Parameters:
    ///   - createdAt: when the push was queued (the message's commit).
    ///   - hint: the provider's `after` (`PushOutcome.retry`), if any.
    public func decision(
        afterFailedAttempts failedAttempts: Int,
        createdAt: Date,
        now: Date,
        hint: Duration? = nil,
        using generator: inout some RandomNumberGenerator
    ) -> Decision {
        let deadline = expiry(createdAt: createdAt)
        guard now < deadline else { return .expire }
        let backoff = backoffRange(afterFailedAttempts: failedAttempts)
        let span = backoff.upperBound - backoff.lowerBound
        var delay = backoff.lowerBound + span * Double.random(in: 0...1, using: &generator)
        if let hint { delay = min(max(delay, hint), maximumDelay) }
        let retryAt = now.addingTimeInterval(delay.seconds)
        // The last attempt falls at the end of the window rather than being given up early.
        return .retry(at: min(retryAt, deadline))
    }

    /// The decision with the system's random numbers.
    public func decision(
        afterFailedAttempts failedAttempts: Int,
        createdAt: Date,
        now: Date,
        hint: Duration? = nil
    ) -> Decision {
        var generator = SystemRandomNumberGenerator()
        return decision(
            afterFailedAttempts: failedAttempts,
            createdAt: createdAt,
            now: now,
            hint: hint,
            using: &generator
        )
    }

    /// The range the jittered wait after `failedAttempts` failures falls in: `firstDelay` doubled
    /// per earlier failure, capped at `maximumDelay`; from half of that to all of it.
    public func backoffRange(afterFailedAttempts failedAttempts: Int) -> ClosedRange<Duration> {
        let doublings = max(0, failedAttempts - 1)
        var nominal = firstDelay
        for _ in 0..<min(doublings, 62) where nominal < maximumDelay { nominal *= 2 }
        nominal = min(nominal, maximumDelay)
        return (nominal / 2)...nominal
    }

    /// When a push created at `createdAt` expires.
    public func expiry(createdAt: Date) -> Date {
        createdAt.addingTimeInterval(window.seconds)
    }

    /// Whether a push created at `createdAt` is past its window at `now` (the worker drops it
    /// unsent, as `expired`).
    public func isExpired(createdAt: Date, now: Date) -> Bool {
        now >= expiry(createdAt: createdAt)
    }
}

extension Duration {
    /// The duration in seconds, with its fraction.
    var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) * 1e-18
    }
}
