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
        RequestLog.write(request, response, since: started, logger: logger, details: Self.logDetails)
        return response
    }

    /// What the request line adds for a database request: its query (the `auth` value hidden)
    /// and namespace.
    static func logDetails(_ target: (path: Substring, query: Substring?)) -> Logger.Metadata {
        let parsed = try? QueryString(target.query)
        return [
            "hb.request.query": "\(parsed?.redacted ?? "<unparsable>")",
            "hearth.ns": "\(parsed?["ns"] ?? "default")",
        ]
    }
}
