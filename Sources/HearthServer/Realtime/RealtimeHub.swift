import Logging
import ServiceLifecycle
import Synchronization

/// The live realtime connections (WebSockets and SSE streams) of a server, so graceful
/// shutdown can close them (WebSocket 1001, SSE streams ended) and wait for their onDisconnect
/// work before HTTP stops and the store closes.
final class RealtimeHub: Sendable {
    private struct State {
        var nextID: UInt64 = 0
        var members: [UInt64: (namespace: String?, drain: @Sendable () -> Void)] = [:]
        var draining = false
        var emptyWaiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    /// Registers a connection (of `namespace`) with the closure that asks it to close. When the
    /// server is already draining, the closure runs at once.
    func register(namespace: String? = nil, drain: @escaping @Sendable () -> Void) -> UInt64 {
        let (id, draining) = state.withLock { state -> (UInt64, Bool) in
            state.nextID += 1
            state.members[state.nextID] = (namespace, drain)
            return (state.nextID, state.draining)
        }
        if draining { drain() }
        return id
    }

    /// The connection has finished (its onDisconnect work included).
    func unregister(_ id: UInt64) {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.members.removeValue(forKey: id)
            guard state.members.isEmpty else { return [] }
            defer { state.emptyWaiters = [] }
            return state.emptyWaiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// The number of live connections.
    var count: Int { state.withLock { $0.members.count } }

    /// The number of live connections of `namespace`.
    func count(namespace: String) -> Int {
        state.withLock { state in state.members.values.reduce(0) { $0 + ($1.namespace == namespace ? 1 : 0) } }
    }

    /// Asks every connection to close and waits until all have finished, or `timeout` passes.
    func drain(timeout: Duration) async {
        let drains = state.withLock { state -> [@Sendable () -> Void] in
            state.draining = true
            return state.members.values.map(\.drain)
        }
        for drain in drains { drain() }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.waitUntilEmpty() }
            group.addTask { try? await Task.sleep(for: timeout) }
            await group.next()
            group.cancelAll()
        }
    }

    /// Asks every connection of `namespace` to close (a cluster node stopped serving it: its
    /// clients reconnect and reach the new owner).
    func close(namespace: String) {
        let drains = state.withLock { state in
            state.members.values.filter { $0.namespace == namespace }.map(\.drain)
        }
        for drain in drains { drain() }
    }

    private func waitUntilEmpty() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let empty = state.withLock { state -> Bool in
                    if state.members.isEmpty || Task.isCancelled { return true }
                    state.emptyWaiters.append(continuation)
                    return false
                }
                if empty { continuation.resume() }
            }
        } onCancel: {
            let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
                defer { state.emptyWaiters = [] }
                return state.emptyWaiters
            }
            for waiter in waiters { waiter.resume() }
        }
    }
}

/// Listed after the HTTP service, so graceful shutdown reaches it first: it closes the
/// realtime connections and waits for them before HTTP drains and the store closes.
struct RealtimeDrainService: Service {
    let hub: RealtimeHub
    let timeout: Duration
    let logger: Logger

    func run() async throws {
        try? await gracefulShutdown()
        let open = hub.count
        await hub.drain(timeout: timeout)
        logger.info("realtime drained", metadata: ["hearth.connections": "\(open)", "hearth.left": "\(hub.count)"])
    }
}
