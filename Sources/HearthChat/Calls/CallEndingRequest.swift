import HearthCore
import HearthFunctions

/// The frame `declineCall` and `endCall` share: a signed-in caller names a call (`{callId}`),
/// the callable decides on a snapshot what to write (which may end the call: `ending`), and
/// the decision commits while its conditions hold (`ChatChange.commit(call:in:decide:)`). The
/// call message's id is drawn once, so every attempt would write the same message.
struct CallEndingRequest: Sendable {
    /// The signed-in caller.
    let uid: String
    /// The call named by `callId`, a valid key.
    let callId: String
    private let database: CallableDatabase
    private let messageId = CallRecord.ids.next()

    /// - Throws: `UNAUTHENTICATED` when the caller is not a signed-in user; `INVALID_ARGUMENT`
    ///   when `data` is not an object or `callId` is missing or not a key.
    init(_ request: CallRequest) throws(CallableError) {
        uid = try request.signedInUID()
        let data = try CallData(request.data, usage: #"e.g. {"callId": "<call id>"}"#)
        callId = try data.key("callId", of: "call id")
        database = request.database
    }

    /// The writes that end `call` as `state` now, with its call message (`CallEnding`).
    func ending(_ call: CallRecord, as state: CallState) -> CallEnding {
        CallEnding(call: call, state: state, endedAt: database.now(), messageId: messageId)
    }

    /// Commits what `decide` decides on a snapshot, deciding again while it is overtaken.
    /// - Returns: the callable's answer, `{}`.
    /// - Throws: what `decide` throws; `ABORTED` from `ChatChange.commit(call:in:decide:)`.
    func commit(
        _ decide: @escaping @Sendable (CallableSnapshot) throws(CallableError) -> ChatChange
    ) async throws(CallableError) -> JSONValue {
        try await ChatChange.commit(call: callId, in: database, decide: decide)
        return .object([])
    }
}
