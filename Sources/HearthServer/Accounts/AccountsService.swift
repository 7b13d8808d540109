import HearthAccounts
import Logging
import ServiceLifecycle

/// Keeps the accounts store open while the server runs and closes it on shutdown (after
/// HTTP has drained: services stop in reverse order).
struct AccountsService: Service {
    let accounts: AccountsStore
    let logger: Logger

    /// In a cluster, how often the accounts catch up with other nodes' changes unasked (the
    /// revocations they made reach this node's connections within it).
    static let followInterval: Duration = .milliseconds(200)

    func run() async throws {
        if accounts.isReplicated {
            await cancelWhenGracefulShutdown {
                while !Task.isCancelled {
                    do {
                        try await accounts.synchronize()
                    } catch {
                        logger.warning("accounts did not catch up", metadata: ["hearth.error": "\(error)"])
                    }
                    try? await Task.sleep(for: Self.followInterval)
                }
            }
        } else {
            try? await gracefulShutdown()
        }
        accounts.close()
        logger.info("accounts closed")
    }
}
