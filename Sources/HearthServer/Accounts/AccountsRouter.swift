import Hummingbird

/// The server's outermost responder: Firebase Auth requests
/// (`/identitytoolkit.googleapis.com/v1/...`, `/securetoken.googleapis.com/v1/token`) go to the
/// accounts endpoint, everything else (preflights included) to `inner`.
struct AccountsRouter<Inner: HTTPResponder>: HTTPResponder where Inner.Context == BasicRequestContext {
    typealias Context = PeerRequestContext

    let inner: Inner
    let endpoint: AccountsEndpoint

    func respond(to request: Request, context: PeerRequestContext) async throws -> Response {
        if request.method != .options, let route = AccountsRoute(target: request.head.path ?? "/") {
            return await endpoint.respond(to: request, route: route, clientAddress: context.clientAddress)
        }
        return try await inner.respond(to: request, context: BasicRequestContext(source: context.source))
    }
}
