import Hummingbird
import Logging

/// The one line every HTTP request is logged with, whichever endpoint answered it: method,
/// path (never the query's `auth` value or the `Authorization` header), status and duration,
/// plus what the endpoint adds (`details`, given the request's split target).
enum RequestLog {
    static func write(
        _ request: Request,
        _ response: Response,
        since started: ContinuousClock.Instant,
        logger: Logger,
        details: (_ target: (path: Substring, query: Substring?)) -> Logger.Metadata = { _ in [:] }
    ) {
        // The line's parts cost more than the rest of a small request: only when it is logged.
        guard logger.logLevel <= .info else { return }
        write(
            method: request.method.rawValue,
            target: request.head.path ?? "/",
            status: response.status.code,
            since: started,
            logger: logger,
            details: details
        )
    }

    /// The same line for a request answered below the router (`DirectRESTWriteHandler`).
    static func write(
        method: String,
        target rawTarget: String,
        status: Int,
        since started: ContinuousClock.Instant,
        logger: Logger,
        details: (_ target: (path: Substring, query: Substring?)) -> Logger.Metadata = { _ in [:] }
    ) {
        guard logger.logLevel <= .info else { return }
        let elapsed = ContinuousClock.now - started
        let target = PercentDecoding.splitTarget(rawTarget)
        let milliseconds = Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1000
        var metadata: Logger.Metadata = [
            "hb.request.method": "\(method)",
            "hb.request.path": "\(target.path)",
            "hb.response.status": "\(status)",
            "hearth.duration_ms": "\((milliseconds * 10).rounded() / 10)",
        ]
        metadata.merge(details(target)) { _, detail in detail }
        logger.info("request", metadata: metadata)
    }
}
