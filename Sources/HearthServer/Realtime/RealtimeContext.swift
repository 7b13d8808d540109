import HearthDatabase
import Logging

/// What every realtime connection of a server shares: the engine, credentials, access checks,
/// the hub of live connections and the limits.
struct RealtimeContext: Sendable {
    let database: RealtimeDatabase
    let rules: RulesRegistry
    let credentials: RealtimeCredentials
    let access: RealtimeAccess
    let hub: RealtimeHub
    let configuration: RealtimeConfiguration
    let logger: Logger

    /// The engine of `name`, with its rules (and indexes) loaded first, as REST does.
    func engine(for name: String) async throws -> NamespaceEngine {
        _ = try await rules.document(for: name)
        return try database.namespace(name)
    }
}
