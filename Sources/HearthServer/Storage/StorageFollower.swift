import HearthStorage
import Logging
import ServiceLifecycle

/// In a cluster: keeps this node's storage catalog and storage rules up with the cluster's a
/// few times a second (the files of versions other nodes killed go from this node's cache), and
/// at start removes the bytes in PostgreSQL no object names. Outside a cluster it does nothing.
/// Stops on graceful shutdown, before the store closes.
struct StorageFollower: Service {
    let objects: ObjectStore
    let rules: StorageRulesCatalog
    let logger: Logger

    /// How often the node catches up unasked.
    static let interval: Duration = .milliseconds(200)

    func run() async throws {
        guard objects.isReplicated else {
            try? await gracefulShutdown()
            return
        }
        await cancelWhenGracefulShutdown {
            do {
                let swept = try await StorageEndpoint.run { try objects.sweepShared() }
                if swept > 0 {
                    logger.info("storage's orphan bytes swept", metadata: ["hearth.generations": "\(swept)"])
                }
            } catch {
                logger.warning("storage's orphan bytes were not swept", metadata: ["hearth.error": "\(error)"])
            }
            while !Task.isCancelled {
                do {
                    try await StorageEndpoint.run { try objects.synchronize() }
                } catch {
                    logger.warning("storage did not catch up", metadata: ["hearth.error": "\(error)"])
                }
                await rules.followCluster()
                try? await Task.sleep(for: Self.interval)
            }
        }
    }
}
