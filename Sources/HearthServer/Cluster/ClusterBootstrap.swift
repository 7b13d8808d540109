import Foundation
import HearthCluster
import Logging
import NIOPosix
import ServiceLifecycle

/// Joins the cluster `--cluster` names, if any: its PostgreSQL (tables created on first use)
/// and this node's id, kept in the data directory (`cluster-node-id`) so a restarted node is the
/// same node.
enum ClusterBootstrap {
    static func join(_ configuration: HearthServerConfiguration, logger: Logger) async throws -> ClusterMembership? {
        guard let settings = configuration.cluster else { return nil }
        if let problem = settings.problem(host: configuration.host) { throw HearthServerError(problem) }
        let directory: ClusterDirectory
        do {
            directory = try await ClusterDirectory.open(
                settings.address,
                eventLoopGroup: MultiThreadedEventLoopGroup.singleton,
                // A renewal that hangs past a third of a lease would lose every lease behind it.
                timeout: .milliseconds(Int64(max(2_000, settings.leaseSeconds * 1_000 / 3))),
                logger: logger
            )
        } catch {
            throw HearthServerError("Cannot join the cluster at \(settings.address): \(error)")
        }
        let nodeID: String
        do {
            nodeID = try Self.nodeID(in: configuration.dataDirectory)
        } catch {
            await directory.close()
            throw HearthServerError("Cannot keep the node's id in '\(configuration.dataDirectory)': \(error)")
        }
        logger.info(
            "cluster opened",
            metadata: ["hearth.cluster": "\(settings.address)", "hearth.cluster.node": "\(nodeID)"]
        )
        return ClusterMembership(
            directory: directory,
            nodeID: nodeID,
            url: settings.advertise,
            leaseSeconds: settings.leaseSeconds,
            snapshotEntries: settings.snapshotEntries,
            seedFile: configuration.seedFile,
            logger: logger
        )
    }

    /// The node's id: read from the data directory, made (a random UUID) on first start.
    static func nodeID(in dataDirectory: String) throws -> String {
        let path = dataDirectory + "/cluster-node-id"
        if let stored = try? String(contentsOfFile: path, encoding: .utf8) {
            let id = stored.trimmingCharacters(in: .whitespacesAndNewlines)
            if !id.isEmpty { return id }
        }
        try FileManager.default.createDirectory(atPath: dataDirectory, withIntermediateDirectories: true)
        let id = UUID().uuidString.lowercased()
        try Data((id + "\n").utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
        return id
    }
}

/// Runs the node's heartbeat and lease renewals while the server runs; on graceful shutdown
/// gives its leases up (before the store closes), so other nodes take its namespaces at once.
struct ClusterService: Service {
    let membership: ClusterMembership?

    func run() async throws {
        guard let membership else {
            try? await gracefulShutdown()
            return
        }
        await cancelWhenGracefulShutdown {
            await membership.run()
        }
        await membership.directory.close()
        try? await membership.client.shutdown()
    }
}
