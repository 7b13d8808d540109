import HearthDatabase
import Logging

/// What every realtime connection of a server shares: the engine, credentials,
/// the hub of live connections and the limits.
struct RealtimeContext: Sendable {
    let database: Database
    let credentials: RealtimeCredentials
    let hub: RealtimeHub
    let configuration: RealtimeConfiguration
    let logger: Logger

    /// The engine of `name`, with its rules (and indexes) loaded first, as REST does.
    func engine(for name: String) async throws -> NamespaceEngine {
        try await database.engine(for: name)
    }
}
