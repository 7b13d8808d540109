import HearthAccounts
import Logging
import ServiceLifecycle

/// Keeps the accounts store open while the server runs and closes it on shutdown (after
/// HTTP has drained: services stop in reverse order).
struct AccountsService: Service {
    let accounts: AccountsStore
    let logger: Logger

    func run() async throws {
        try? await gracefulShutdown()
        accounts.close()
        logger.info("accounts closed")
    }
}
