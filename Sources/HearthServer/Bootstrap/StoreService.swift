import HearthDatabase
import HearthStorage
import Logging
import ServiceLifecycle

/// Keeps the database's store and the files' store open while the server runs; closes them on
/// graceful shutdown.
/// Listed before the HTTP service in the `ServiceGroup`, so it stops after HTTP has drained.
struct StoreService: Service {
    let database: Database
    let objects: ObjectStore
    let logger: Logger

    func run() async throws {
        try? await gracefulShutdown()
        database.close()
        objects.close()
        logger.info("store closed")
    }
}
