/// A side effect of commits outside the tree (a search index, a mail queue, an audit log),
/// fed every commit of a namespace in sequence order from a durable cursor: none is missed
/// across a crash or `kill -9`.
///
/// While a namespace has an observer, each write also puts its commit into the namespace's
/// commit log, in the same LevelDB batch; the observer's cursor (the last sequence number it
/// handled) is saved after `committed` returns, and the log is trimmed below the lowest
/// cursor. At start, commits after the cursor are handed over again: delivery is at least
/// once (a commit handled just before a crash, its cursor not yet saved, comes again), so
/// make `committed` idempotent (the sequence number identifies a commit).
public protocol CommitObserver: Sendable {
    /// Names the observer's cursor; keep it stable across restarts (at most 200 bytes).
    var name: String { get }

    /// Handles one commit. Runs on a queue of its own (one commit at a time, in order), never
    /// on the writer; it may block. Throwing leaves the cursor before this commit: it is
    /// handed over again after a pause.
    func committed(_ commit: CommittedWrite, namespace: String) throws
}
