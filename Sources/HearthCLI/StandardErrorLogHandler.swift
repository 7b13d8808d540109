import Logging

/// Log lines on standard error exactly as `StreamLogHandler` writes them, except that the
/// metadata set on a logger is formatted only when a line is written. The HTTP server sets a
/// request id on every request's logger, and `StreamLogHandler` formats its metadata on every
/// change: about 3 % of a REST write's request-thread time (perf, chat-messages over REST), for
/// lines that at the default level are never written.
struct StandardErrorLogHandler: LogHandler {
    private var stream: StreamLogHandler
    var metadata: Logger.Metadata = [:]

    init(label: String, level: Logger.Level) {
        self.init(StreamLogHandler.standardError(label: label), level: level)
    }

    /// Writes through `stream` (tests give one that keeps the lines).
    init(_ stream: StreamLogHandler, level: Logger.Level) {
        self.stream = stream
        self.stream.logLevel = level
    }

    var logLevel: Logger.Level {
        get { stream.logLevel }
        set { stream.logLevel = newValue }
    }

    var metadataProvider: Logger.MetadataProvider? {
        get { stream.metadataProvider }
        set { stream.metadataProvider = newValue }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var handler = stream
        if !metadata.isEmpty { handler.metadata = metadata }
        handler.log(event: event)
    }
}
