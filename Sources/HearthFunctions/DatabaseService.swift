public import HearthDatabase

/// Server-side work that runs for as long as the server serves (`HearthServerConfiguration.services`):
/// started once the database is open and the start's presence sweep has run, cancelled and
/// awaited before the database closes. An app's timers and queues are services (the chat app's
/// missed-call timer, `hearth serve`'s push delivery).
///
/// `run` works until its task is cancelled; it should return promptly then (a sleep or a wait
/// that throws `CancellationError`). When it throws anything else, the server logs the error
/// and runs it again after a short pause, so a transient store failure does not stop the work
/// for the rest of the process's life. It must therefore pick up where the database says it
/// is: the tree is the truth, not the service's memory.
public protocol DatabaseService: Sendable {
    /// A short name for logs, e.g. `chat.calls.missed`.
    var name: String { get }
    /// Does the work until the task is cancelled.
    func run(database: Database) async throws
}
