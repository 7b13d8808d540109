import ArgumentParser
import Logging

/// `--log-level`, shared by every subcommand.
struct LoggingOptions: ParsableArguments {
    @Option(
        name: .long,
        help: "trace, debug, info, notice, warning, error or critical (env HEARTH_LOG_LEVEL; default info)."
    )
    var logLevel: String?

    /// The level from the flag, else `HEARTH_LOG_LEVEL`, else `info`.
    func resolve(_ environment: Environment) throws -> Logger.Level {
        guard let text = environment.string(logLevel, "HEARTH_LOG_LEVEL") else { return .info }
        guard let level = Logger.Level(rawValue: text.lowercased()) else {
            let source = logLevel != nil ? "'--log-level'" : "HEARTH_LOG_LEVEL"
            throw ValidationError(
                "Invalid value '\(text)' for \(source): "
                    + "expected trace, debug, info, notice, warning, error or critical."
            )
        }
        return level
    }

    /// Sends every log line to stderr at `level` and returns the command's logger. Call once per process.
    static func bootstrap(level: Logger.Level) -> Logger {
        LoggingSystem.bootstrap { label in StandardErrorLogHandler(label: label, level: level) }
        var logger = Logger(label: "hearth")
        logger.logLevel = level
        return logger
    }
}
