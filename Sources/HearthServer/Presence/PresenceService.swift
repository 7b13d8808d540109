import Logging
import ServiceLifecycle

/// Writes the presence transitions `PresenceTracker` collects: woken by the first change after a
/// flush, it waits `flushDelay` (so a drop and a reconnect inside it cancel out, and a storm of
/// endings becomes a few commits), then writes every pending transition in commits of at most
/// `maxUsersPerCommit` users per namespace, until none is pending. On graceful shutdown
/// (listed after the store, so it stops before the store closes, and after the realtime drain)
/// it writes `offline` for everyone it left `online`; the start's sweep covers a stop that
/// could not (`PresenceSweep`).
struct PresenceService: Service {
    let tracker: PresenceTracker
    let writer: PresenceWriter
    let configuration: PresenceConfiguration
    let logger: Logger

    /// How long a failed write waits before the next attempt.
    static let retryDelay: Duration = .seconds(1)

    func run() async {
        await withGracefulShutdownHandler {
            for await _ in tracker.wakes {
                try? await configuration.clock.sleep(for: configuration.flushDelay)
                await flushPending()
            }
        } onGracefulShutdown: {
            tracker.stopWaking()
        }
        let last = tracker.closeAll()
        guard !last.isEmpty else { return }
        _ = await write(last)
        logger.info("presence offline at shutdown", metadata: ["hearth.presence.offline": "\(last.count)"])
    }

    /// Writes what is pending, in full batches while more than a batch waits. What arrives
    /// while a batch is written waits for the next window (its first change woke the service
    /// again), so the tail of a storm is one more commit, not one per write's duration.
    func flushPending() async {
        while true {
            let batch = tracker.takeTransitions(limit: configuration.maxUsersPerCommit)
            if batch.isEmpty { return }
            if !(await write(batch)) {
                try? await Task.sleep(for: Self.retryDelay)
                return
            }
            if batch.count < configuration.maxUsersPerCommit { return }
        }
    }

    /// One commit per namespace of the batch; false when one failed (its users are pending
    /// again).
    private func write(_ batch: [PresenceLedger.Transition]) async -> Bool {
        var succeeded = true
        for (namespace, transitions) in Dictionary(grouping: batch, by: \.key.namespace) {
            do {
                tracker.written(try await writer.write(transitions, namespace: namespace))
                logger.debug(
                    "presence written",
                    metadata: ["hearth.ns": "\(namespace)", "hearth.presence.users": "\(transitions.count)"]
                )
            } catch {
                succeeded = false
                tracker.failed(transitions)
                logger.error(
                    "presence write failed",
                    metadata: ["hearth.ns": "\(namespace)", "hearth.error": "\(String(reflecting: error))"]
                )
            }
        }
        return succeeded
    }
}
