import HearthStorage
import Hummingbird

/// Resumable uploads in a cluster: a session's bytes are in part files on the node that
/// started it, and its id begins with that node's tag (`ObjectStore.sessionTag`). Its later
/// requests (`upload_id=`, both APIs) reaching another node are forwarded there. A session dies
/// with its node: its requests are answered 404 with `X-Goog-Upload-Status: final`, and the
/// client starts the upload again.
extension ClusterRouting {
    /// The answer when `request` continues another node's resumable session; nil when this
    /// node answers it.
    func forwardUploadSession(_ request: Request, route: HearthRoute, query: Substring?) async -> Response? {
        switch route {
        case .storage, .gcs: break
        default: return nil
        }
        guard let query, query.contains("upload_id="), let id = try? QueryString(query)["upload_id"],
            let tag = ObjectStore.sessionTag(of: id), tag != ObjectStore.sessionTag(nodeID: membership.nodeID),
            !isForwarded(request)
        else { return nil }
        do {
            let nodes = try await membership.directory.nodes(leaseSeconds: membership.leaseSeconds)
            guard let node = nodes.first(where: { ObjectStore.sessionTag(nodeID: $0.id) == tag }), node.alive else {
                return Self.sessionLost()
            }
            return try await forwarder.forward(request, to: node.url)
        } catch {
            logger.warning("an upload session's node did not answer", metadata: ["hearth.error": "\(error)"])
            return Self.sessionLost()
        }
    }

    /// A session whose node is gone: as an unknown session is answered.
    static func sessionLost() -> Response {
        var response = StorageAnswer.error(
            404,
            "The upload's session was on a node of the cluster that stopped; start the upload again."
        )
        response.headers[StorageEndpoint.uploadStatus] = "final"
        return response
    }
}
