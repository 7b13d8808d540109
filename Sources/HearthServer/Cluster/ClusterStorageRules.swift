import HearthCluster
import HearthCore

/// The cluster's storage rules: the shared log `storage-rules` of the cluster's PostgreSQL
/// (`ClusterRulesVersions`: one entry per version, the last publish wins), the newest in force
/// on every node.
struct ClusterStorageRules: Sendable {
    static let stream = "storage-rules"

    let directory: ClusterDirectory
    let nodeID: String

    /// The newest version and its position, nil when the cluster has none.
    func newest() async throws -> (position: Int64, text: String)? {
        guard let entry = try await directory.sharedLogTail(Self.stream, limit: 1).last else { return nil }
        let json = try? JSONParser.parse(entry.batch)
        return (entry.position, json?["text"]?.stringValue ?? "")
    }

    /// Appends `text` as the newest version; returns its position.
    func publish(_ text: String, origin: String) async throws -> Int64 {
        guard
            let position = try await ClusterRulesVersions.publish(
                text,
                origin: origin,
                to: Self.stream,
                directory: directory,
                nodeID: nodeID
            )
        else { throw ClusterError.unavailable("other nodes kept publishing the storage rules first") }
        return position
    }
}
