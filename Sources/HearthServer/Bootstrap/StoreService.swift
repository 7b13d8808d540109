import HearthDatabase
import Logging
import ServiceLifecycle

/// Keeps the database's store open while the server runs; closes it on graceful shutdown.
/// Listed before the HTTP service in the `ServiceGroup`, so it stops after HTTP has drained.
struct StoreService: Service {
    let database: Database
    let logger: Logger

    func run() async throws {
        try? await gracefulShutdown()
        database.close()
        logger.info("store closed")
    }
}
