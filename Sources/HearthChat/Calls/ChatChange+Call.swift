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
        try await commit(in: database, subject: "call '\(callId)'", decide: decide)
    }
}
