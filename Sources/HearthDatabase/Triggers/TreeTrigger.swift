public import HearthCore

/// Derives further writes from a write, committed in the same batch: one sequence number,
/// indexes kept, listeners told of everything as one commit, nothing of it visible without the
/// rest (before or after a crash).
///
/// For each write that changes a location matching `pattern` (a set, a multi-path update, a
/// transaction, an onDisconnect write; a delete or a set above the location, a write below it),
/// the namespace's writer calls `updates(for:)` once per matching location, with the value
/// there before and after the write. What it returns is applied after the write, in order
/// (a later update wins where two overlap; increments count from what the write and the
/// earlier updates left). The returned updates do not run triggers again, and the client's
/// rules judged only the client's part.
///
/// A trigger is a pure function of its input: the writer may call it again for the same write
/// (after applying the writes staged in its round). It runs on the namespace's writer: keep it
/// quick, never block. Throwing refuses the whole write; nothing is written. Throw
/// `WriteRefusal` to tell the client why (`StoreError` `.invalidWrite`, REST 400); any other
/// error is the server's failure (`.triggerFailed`: the client is told only that, the log the
/// error). Registered with `DatabaseTriggers.add(_:in:)`.
public protocol TreeTrigger: Sendable {
    /// The locations watched: a path whose `$name` segments match any key, e.g.
    /// `/lists/$list/items/$item`.
    var pattern: String { get }

    /// The updates to commit with a write that changed one matching location.
    func updates(for change: TreeChange) throws -> [DerivedUpdate]
}
