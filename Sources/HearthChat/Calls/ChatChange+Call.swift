import HearthFunctions

extension ChatChange {
    /// `commit(chat:in:decide:)` for a change of the call `callId`: decided on a snapshot,
    /// committed while its conditions hold, decided again when they no longer do.
    /// - Throws: what `decide` throws; `ABORTED` naming the call after `maxAttempts` decisions
    ///   were overtaken.
    static func commit(
        call callId: String,
        in database: CallableDatabase,
        decide: @escaping @Sendable (CallableSnapshot) throws(CallableError) -> ChatChange
    ) async throws(CallableError) {
        for _ in 0..<maxAttempts {
            let change = try await database.read(decide)
            let conditions = change.conditions
            let committed = try await database.commit(change.updates) { snapshot in
                conditions.allSatisfy { $0(snapshot) }
            }
            if committed { return }
        }
        throw CallableError(
            .aborted,
            "The call '\(callId)' kept changing while this call ran (\(maxAttempts) attempts); call again."
        )
    }
}
