import HearthDatabase
import Logging

/// What every realtime connection of a server shares: the engine, credentials,
/// the hub of live connections, the presence tracker and the limits. A reference: each connection holds one pointer
/// to it, not a copy of the configuration and the logger.
final class RealtimeContext: Sendable {
    let database: Database
    let credentials: RealtimeCredentials
    let hub: RealtimeHub
    /// Counts signed-in connections for server-kept presence.
    let presence: PresenceTracker
    let configuration: RealtimeConfiguration
    let logger: Logger

    init(
        database: Database,
        credentials: RealtimeCredentials,
        hub: RealtimeHub,
        presence: PresenceTracker,
        configuration: RealtimeConfiguration,
        logger: Logger
    ) {
        self.database = database
        self.credentials = credentials
        self.hub = hub
        self.presence = presence
        self.configuration = configuration
        self.logger = logger
    }

    /// The engine of `name`, with its rules (and indexes) loaded first, as REST does.
    func engine(for name: String) async throws -> NamespaceEngine {
        try await database.engine(for: name)
    }
}
