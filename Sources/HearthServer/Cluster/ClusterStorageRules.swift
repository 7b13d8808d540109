import HearthCluster
import HearthCore
import HearthStore

/// The cluster's storage rules: the shared log `storage-rules` of the cluster's PostgreSQL, one
/// entry per version (`{"origin", "text"}`), the newest in force on every node. Publishing
/// appends after the newest entry, again after another node's publish took that position: the
/// last publish wins, as the last `PUT` does on a single server. The newest
/// `Store.rulesHistoryLimit` versions are kept.
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
        var batch: [UInt8] = []
        JSONRenderer.render(.object([("origin", .string(origin)), ("text", .string(text))]), into: &batch)
        for _ in 0..<32 {
            let position = (try await directory.sharedLogTail(Self.stream, limit: 1).last?.position ?? 0) + 1
            if try await directory.appendShared(Self.stream, batch: batch, at: position, node: nodeID).get() {
                // Best effort: versions a failed trim leaves go with the next publish.
                try? await directory.trimShared(Self.stream, before: position + 1 - Int64(Store.rulesHistoryLimit))
                    .get()
                return position
            }
        }
        throw ClusterError.unavailable("other nodes kept publishing the storage rules first")
    }
}
