import HearthCore
import HearthFunctions

/// What a chat callable decided from one snapshot: its updates (one atomic write), the jobs
/// queued in the same commit (files it leaves behind, `FileDeletion`) and the condition,
/// judged on the writer, under which they are still right. `commit` retries the
/// decision on a fresh snapshot when the condition fails (a message, a join or a leave
/// committed in between), so no concurrent change is lost and no stale decision is written.
struct ChatChange: Sendable {
    var updates: [DatabaseUpdate] = []
    var jobs: [ServerJob] = []
    var conditions: [@Sendable (CallableSnapshot) -> Bool] = []

    /// Also requires `condition` on the writer.
    mutating func require(_ condition: @escaping @Sendable (CallableSnapshot) -> Bool) {
        conditions.append(condition)
    }

    /// How often a decision is retried before the caller is told to call again.
    static let maxAttempts = 16

    /// Decides on a snapshot and commits the decision while it holds, retrying on a fresh
    /// snapshot when it no longer does.
    /// - Throws: what `decide` throws (refusals are judged again on every attempt); `ABORTED`
    ///   naming the chat after `maxAttempts` decisions were overtaken.
    static func commit(
        chat chatId: String,
        in database: CallableDatabase,
        decide: @escaping @Sendable (CallableSnapshot) throws(CallableError) -> ChatChange
    ) async throws(CallableError) {
        try await commit(in: database, subject: "chat '\(chatId)'", decide: decide)
    }

    /// The loop every `commit` runs: decide on a snapshot, commit the updates and jobs while
    /// the conditions hold on the writer, decide again on a fresh snapshot when they do not.
    /// - Parameter subject: what kept changing, for the `ABORTED` refusal (`chat 'c1'`).
    /// - Throws: what `decide` throws; `ABORTED` naming `subject` after `maxAttempts`
    ///   decisions were overtaken.
    static func commit(
        in database: CallableDatabase,
        subject: String,
        decide: @escaping @Sendable (CallableSnapshot) throws(CallableError) -> ChatChange
    ) async throws(CallableError) {
        for _ in 0..<maxAttempts {
            let change = try await database.read(decide)
            let conditions = change.conditions
            let committed = try await database.commit(
                change.updates,
                when: { snapshot in conditions.allSatisfy { $0(snapshot) } },
                jobs: change.jobs
            )
            if committed { return }
        }
        throw CallableError(
            .aborted,
            "The \(subject) kept changing while this call ran (\(maxAttempts) attempts); call again."
        )
    }
}
