import HearthDatabase
import HearthRules
import Logging

/// Puts each namespace's compiled rules in force in its engine, where REST, SSE and WebSocket
/// requests are judged, and keeps them current as the registry reloads them.
enum RulesInstaller {
    /// Installs every program the registry puts in force from now on (file edits, PUT): live
    /// listens the new rules refuse are revoked.
    static func follow(_ registry: RulesRegistry, into database: RealtimeDatabase, logger: Logger) {
        registry.observe { namespace, program in
            do {
                try database.namespace(namespace).installRules(program)
            } catch {
                logger.error(
                    "installing rules failed",
                    metadata: ["hearth.ns": "\(namespace)", "hearth.error": "\(error)"]
                )
            }
        }
    }

    /// True when `namespace` exists nowhere (neither open nor on disk) and has no rules file:
    /// its rules would be the default ones, which refuse everyone but the admin, so such a
    /// request is refused without opening anything for it (made-up `?ns=` names cost no memory).
    static func refusesAllButAdmin(
        _ namespace: String,
        registry: RulesRegistry,
        database: RealtimeDatabase
    ) throws -> Bool {
        guard try !database.store.hasNamespace(namespace) else { return false }
        return registry.files.stamp(for: namespace) == nil
    }

    /// The engine of `namespace` with its rules in force (loaded, compiled and indexed on first
    /// use).
    static func engine(
        for namespace: String,
        registry: RulesRegistry,
        database: RealtimeDatabase
    ) async throws -> NamespaceEngine {
        let engine = try database.namespace(namespace)
        if engine.rules.current == nil {
            // No listen can exist before the first program, so there is nothing to re-check.
            _ = engine.rules.installIfAbsent(try await registry.program(for: namespace))
        }
        return engine
    }
}
