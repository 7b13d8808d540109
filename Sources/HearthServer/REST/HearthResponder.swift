import Hummingbird
import Logging

/// The server's single responder: preflights, the REST service, error mapping, CORS headers
/// and one log line per request (never the `auth` value or the `Authorization` header).
struct HearthResponder: HTTPResponder {
    typealias Context = BasicRequestContext

    let service: RESTService
    let eventStreams: EventStreamService
    let cors: CORS
    let logger: Logger

    func respond(to request: Request, context: Context) async throws -> Response {
        let started = ContinuousClock.now
        var response: Response
        if request.method == .options {
            response = cors.preflight(request)
        } else {
            do {
                if EventStreamService.accepts(request) {
                    response = try await eventStreams.respond(to: request)
                } else {
                    response = try await service.handle(request)
                }
            } catch {
                response = ErrorResponder.response(for: error, corsOrigin: nil, logger: logger)
            }
        }
        cors.decorate(&response)
        log(request, response: response, elapsed: ContinuousClock.now - started)
        return response
    }

    private func log(_ request: Request, response: Response, elapsed: Duration) {
        // The line's parts cost more than the rest of a small request: only when it is logged.
        guard logger.logLevel <= .info else { return }
        let target = PercentDecoding.splitTarget(request.head.path ?? "/")
        let parsed = try? QueryString(target.query)
        let query = parsed?.redacted ?? "<unparsable>"
        let milliseconds = Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1000
        logger.info(
            "request",
            metadata: [
                "hb.request.method": "\(request.method.rawValue)",
                "hb.request.path": "\(target.path)",
                "hb.request.query": "\(query)",
                "hb.response.status": "\(response.status.code)",
                "hearth.ns": "\(parsed?["ns"] ?? "default")",
                "hearth.duration_ms": "\((milliseconds * 10).rounded() / 10)",
            ]
        )
    }
}
