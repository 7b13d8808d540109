import HearthDatabase
import Logging

/// Opens the database the server's configuration names (`Database.open`): a rules or seed file
/// that stops the start is told as the server's own error, with its diagnostics.
enum DatabaseBootstrap {
    static func open(
        _ configuration: HearthServerConfiguration,
        logger: Logger,
        activity: DatabaseActivity = .none,
        cluster: ClusterHooks? = nil
    ) async throws -> Database {
        var databaseConfiguration = DatabaseConfiguration(
            dataDirectory: configuration.dataDirectory,
            syncMode: configuration.syncMode,
            triggers: configuration.triggers,
            clock: configuration.clock,
            rulesFile: configuration.rulesFile,
            seedFile: configuration.seedFile,
            writer: configuration.writer
        )
        databaseConfiguration.cluster = cluster
        return try await startingRules {
            try await Database.open(
                databaseConfiguration,
                logger: logger,
                activity: activity
            )
        }
    }

    /// Runs `body` (the database's start, or the rules it loads at start): a rules or seed file
    /// that stops the start is told as a `HearthServerError`, with its diagnostics.
    static func startingRules<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as DatabaseError
            where error.code == .invalidRules || error.code == .unreadableRules || error.code == .invalidSeed
            || error.code == .invalidConfiguration
        {
            throw HearthServerError(error.message)
        }
    }
}
