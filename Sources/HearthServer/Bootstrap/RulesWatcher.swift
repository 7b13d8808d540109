import ServiceLifecycle

/// Hot reload: polls the rules files of every loaded namespace (one `stat` each per tick) and
/// lets `RulesRegistry` reload the ones that changed. Stops on graceful shutdown.
struct RulesWatcher: Service {
    let registry: RulesRegistry
    /// Time between polls; nil turns hot reload off.
    let interval: Duration?

    func run() async throws {
        guard let interval else {
            try? await gracefulShutdown()
            return
        }
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                if Task.isCancelled { break }
                await registry.poll()
            }
        }
    }
}
