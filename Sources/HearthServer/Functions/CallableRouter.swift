import Hummingbird

/// Sends callable requests (`CallableRoute`) to the callable endpoint and everything else
/// (preflights included, which `HearthResponder` answers for every path) to `inner`.
struct CallableRouter<Inner: HTTPResponder>: HTTPResponder where Inner.Context == BasicRequestContext {
    typealias Context = BasicRequestContext

    let inner: Inner
    let endpoint: CallableEndpoint

    func respond(to request: Request, context: BasicRequestContext) async throws -> Response {
        if request.method != .options, let route = CallableRoute(target: request.head.path ?? "/") {
            return await endpoint.respond(to: request, route: route)
        }
        return try await inner.respond(to: request, context: context)
    }
}
