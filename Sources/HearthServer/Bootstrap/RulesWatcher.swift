import HearthDatabase
import ServiceLifecycle

/// Hot reload: one watcher for the rules folder. Each tick lists the folder once (and `stat`s
/// the rules files in it) and lets the database's `RulesCatalog` reload the loaded namespaces
/// whose file changed: namespaces without a file cost nothing; the storage rules file is
/// `stat`ed on the same tick. Stops on graceful shutdown.
struct RulesWatcher: Service {
    let rules: RulesCatalog
    /// `rules/storage.rules`, polled on the same tick.
    let storageRules: StorageRulesCatalog
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
                await rules.poll()
                await storageRules.poll()
            }
        }
    }
}
