public import HearthCore

/// The result of the database work an action asked for, handed back to the session with
/// `RealtimeSession.completed(_:for:)`.
public enum RequestOutcome: Sendable, Equatable {
    /// The write, onDisconnect registration or cancellation succeeded: `{"s":"ok","d":""}`.
    case ok
    /// The listen is registered; the session pushes `data` (the query's current result at the
    /// listen path, tagged) and then answers `{"s":"ok","d":{}}` (with `{"w": warnings}` when
    /// there are warnings, such as `no_index`).
    case listening(data: Node?, warnings: [String] = [])
    /// The listen is registered and the client's hash matched the current data: no data push.
    case listeningUnchanged(warnings: [String] = [])
    /// The value a `get` read: `{"s":"ok","d":value}` in the export format.
    case value(Node?)
    /// The credential was verified: the connection now acts as `identity`. Answered with
    /// `{"s":"ok","d":{"auth":authVariable,"expires":seconds}}`.
    case authenticated(AuthIdentity)
    /// The work was refused or failed: `{"s":status,"d":message}`. A failed listen is forgotten;
    /// a refused credential leaves the connection anonymous.
    case failed(ResponseStatus, message: String)

    /// Rules refused the operation: `permission_denied` / `Permission denied`, as Firebase answers.
    public static let permissionDenied = RequestOutcome.failed(.permissionDenied, message: "Permission denied")
}
