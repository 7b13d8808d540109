import HearthStore
import Logging
import ServiceLifecycle

/// Keeps the store open while the server runs; closes it on graceful shutdown. Listed before
/// the HTTP service in the `ServiceGroup`, so it stops after HTTP has drained.
struct StoreService: Service {
    let store: Store
    let logger: Logger

    func run() async throws {
        try? await gracefulShutdown()
        store.close()
        logger.info("store closed")
    }
}
