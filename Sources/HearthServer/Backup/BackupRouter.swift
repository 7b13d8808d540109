import Hummingbird

/// Answers `GET /.backup` (`BackupEndpoint`) and hands every other request on.
struct BackupRouter<Inner: HTTPResponder>: HTTPResponder where Inner.Context == PeerRequestContext {
    typealias Context = PeerRequestContext

    let inner: Inner
    let endpoint: BackupEndpoint

    func respond(to request: Request, context: PeerRequestContext) async throws -> Response {
        let target = PercentDecoding.splitTarget(request.head.path ?? "/")
        if target.path == BackupEndpoint.path && request.method != .options {
            return try await endpoint.respond(to: request, query: target.query)
        }
        return try await inner.respond(to: request, context: context)
    }
}
