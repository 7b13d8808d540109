import Synchronization

/// What a test client received (WebSocket messages, SSE events), in order, until the
/// connection ended. A test awaits the next one, or the end: it wakes when it arrives, not
/// on a polling tick, and gives up after a timeout (every wait is bounded).
public final class AsyncInbox<Element: Sendable>: Sendable {
    private struct Waiter {
        var continuation: CheckedContinuation<Void, Never>
        var timer: Task<Void, Never>?
    }

    private struct State {
        var items: [Element] = []
        var head = 0
        var ended = false
        /// Bumped on every arrival and at the end: a waiter sleeps only while it is unchanged.
        var version: UInt64 = 0
        var nextWaiter: UInt64 = 0
        var waiters: [UInt64: Waiter] = [:]
    }

    private let state = Mutex(State())

    public init() {}

    /// Adds `element` and wakes the waiters.
    public func append(_ element: Element) {
        let woken = state.withLock { state -> [Waiter] in
            state.items.append(element)
            return Self.bump(&state)
        }
        Self.resume(woken)
    }

    /// Marks the end (the connection closed) and wakes the waiters.
    public func finish() {
        let woken = state.withLock { state -> [Waiter] in
            state.ended = true
            return Self.bump(&state)
        }
        Self.resume(woken)
    }

    /// Whether the end was marked.
    public var isFinished: Bool { state.withLock { $0.ended } }

    /// The elements received and not yet taken.
    public var pending: [Element] { state.withLock { Array($0.items[$0.head...]) } }

    /// Takes the next element; nil once the inbox is finished and empty. Throws
    /// `ConditionTimeout` when nothing arrives within `timeout`.
    public func next(timeout: Duration) async throws -> Element? {
        let deadline = ContinuousClock.now + timeout
        while true {
            let (element, ended, version) = state.withLock { state -> (Element?, Bool, UInt64) in
                guard state.head < state.items.count else { return (nil, state.ended, state.version) }
                let element = state.items[state.head]
                state.head += 1
                if state.head > 1024 {
                    state.items.removeFirst(state.head)
                    state.head = 0
                }
                return (element, false, state.version)
            }
            if let element { return element }
            if ended { return nil }
            guard ContinuousClock.now < deadline else { throw ConditionTimeout(timeout: timeout) }
            await change(after: version, until: deadline)
        }
    }

    /// Waits until the inbox is finished; throws `ConditionTimeout` after `timeout`.
    public func waitUntilFinished(timeout: Duration) async throws {
        let deadline = ContinuousClock.now + timeout
        while true {
            let (ended, version) = state.withLock { ($0.ended, $0.version) }
            if ended { return }
            guard ContinuousClock.now < deadline else { throw ConditionTimeout(timeout: timeout) }
            await change(after: version, until: deadline)
        }
    }

    /// Returns once something arrived after `version`, or at `deadline`.
    private func change(after version: UInt64, until deadline: ContinuousClock.Instant) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let id = state.withLock { state -> UInt64? in
                guard state.version == version else { return nil }
                state.nextWaiter += 1
                state.waiters[state.nextWaiter] = Waiter(continuation: continuation)
                return state.nextWaiter
            }
            guard let id else { return continuation.resume() }
            let timer = Task { [weak self] in
                try? await Task.sleep(until: deadline)
                guard let self else { return }
                let waiter = self.state.withLock { $0.waiters.removeValue(forKey: id) }
                waiter?.continuation.resume()
            }
            let stillWaiting = state.withLock { state -> Bool in
                guard state.waiters[id] != nil else { return false }
                state.waiters[id]?.timer = timer
                return true
            }
            if !stillWaiting { timer.cancel() }
        }
    }

    private static func bump(_ state: inout State) -> [Waiter] {
        state.version &+= 1
        let woken = Array(state.waiters.values)
        state.waiters = [:]
        return woken
    }

    private static func resume(_ waiters: [Waiter]) {
        for waiter in waiters {
            waiter.timer?.cancel()
            waiter.continuation.resume()
        }
    }
}
