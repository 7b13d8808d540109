import HearthCore
import HearthProtocol

/// Who may read and write what over the realtime transports (WebSocket and SSE): the one
/// place the rules engine replaces. Until rules are evaluated, as over REST, only the admin
/// reads or writes.
struct RealtimeAccess: Sendable {
    /// True when `identity` may read `path` (through `query`) in `namespace`.
    func mayRead(_ identity: AuthIdentity, at path: DataPath, query: Query?, in namespace: String) async -> Bool {
        identity.bypassesRules
    }

    /// True when `identity` may write at `path` in `namespace`.
    func mayWrite(_ identity: AuthIdentity, at path: DataPath, in namespace: String) async -> Bool {
        identity.bypassesRules
    }
}
