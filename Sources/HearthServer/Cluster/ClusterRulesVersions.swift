import HearthCluster
import HearthCore
import HearthStore

/// A rules document's versions in a shared log of the cluster's PostgreSQL (`rules/<ns>`,
/// `storage-rules`): one entry per version, `{"origin", "text"}`, the newest in force; the
/// newest `Store.rulesHistoryLimit` are kept, as a single server's rules history keeps them.
enum ClusterRulesVersions {
    /// Appends `text` as the newest version of `stream`, after the newest entry, and again after
    /// another node's publish took that position (the last publish wins, as the last `PUT` does
    /// on a single server); then drops the versions past the history. Returns the position, nil
    /// when other nodes kept publishing first.
    static func publish(
        _ text: String,
        origin: String,
        to stream: String,
        directory: ClusterDirectory,
        nodeID: String
    ) async throws -> Int64? {
        var batch: [UInt8] = []
        JSONRenderer.render(.object([("origin", .string(origin)), ("text", .string(text))]), into: &batch)
        for _ in 0..<32 {
            let position = (try await directory.sharedLogTail(stream, limit: 1).last?.position ?? 0) + 1
            if try await directory.appendShared(stream, batch: batch, at: position, node: nodeID).get() {
                // Best effort: versions a failed trim leaves go with the next publish.
                try? await directory.trimShared(stream, before: position + 1 - Int64(Store.rulesHistoryLimit)).get()
                return position
            }
        }
        return nil
    }
}
