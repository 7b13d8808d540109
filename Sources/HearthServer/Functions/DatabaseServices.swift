import HearthCore
import HearthDatabase
import HearthFunctions
import Logging
import ServiceLifecycle

/// Runs the configured `DatabaseService`s, each in its own child task, from the moment the
/// service group starts (the database is open and presence was swept by then) until graceful
/// shutdown, when it cancels and awaits them all. Listed after the store's service, so it stops
/// before the database closes. A service that fails is logged and run again after
/// `restartDelay`; one that returns is done (this service then waits for the shutdown, as
/// one that returned early would stop the group).
struct DatabaseServices: Service {
    let services: [any DatabaseService]
    let database: Database
    let logger: Logger

    /// How long a failed service waits before it runs again.
    static let restartDelay: Duration = .seconds(1)

    func run() async {
        await cancelWhenGracefulShutdown {
            await withTaskGroup(of: Void.self) { group in
                for service in services {
                    group.addTask { await runUntilCancelled(service) }
                }
            }
        }
        // Services that are done (or none): a service that returns early would stop the group.
        try? await gracefulShutdown()
        if !services.isEmpty {
            logger.info("database services stopped", metadata: ["hearth.services": "\(services.count)"])
        }
    }

    private func runUntilCancelled(_ service: any DatabaseService) async {
        while !Task.isCancelled {
            do {
                try await service.run(database: database)
                return
            } catch  where Task.isCancelled {
                return
            } catch let error as StoreError where error.code == .notOwner {
                // A cluster node that does not serve the service's namespace: its owner runs the
                // service; this node tries again, and runs it once it takes the namespace.
                logger.debug(
                    "database service waits for its namespace",
                    metadata: ["hearth.service": "\(service.name)"]
                )
                try? await Task.sleep(for: Self.restartDelay)
            } catch {
                logger.error(
                    "database service failed",
                    metadata: ["hearth.service": "\(service.name)", "hearth.error": "\(String(reflecting: error))"]
                )
                try? await Task.sleep(for: Self.restartDelay)
            }
        }
    }
}
