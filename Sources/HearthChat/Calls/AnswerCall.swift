public import HearthCore
public import HearthFunctions

/// `answerCall {callId, answer}` → `{}`: a callee takes a ringing call with their SDP answer.
/// In a private chat the callee is the other party; in a group any member but the caller, and
/// the first to answer takes it (becomes `callee`): the write sets `state: "accepted"`,
/// `callee`, `answer` and `answeredAt` and removes the chat's ringing marker, committed only
/// while the call is still exactly as read (ringing), so of two racing answers one wins and
/// the other is told the call is no longer ringing. The other members' clients stop ringing
/// when they see the state leave `ringing`.
///
/// Refusals: a call the caller cannot see `NOT_FOUND` (`CallAccess`); the call's own caller, or
/// a member other than a private call's callee, `PERMISSION_DENIED`; a call that is not ringing
/// `FAILED_PRECONDITION`; a missing, empty or too long `answer` `INVALID_ARGUMENT`.
public struct AnswerCall: Callable {
    public init() {}

    public var name: String { "answerCall" }

    public func call(_ request: CallRequest) async throws(CallableError) -> JSONValue {
        let uid = try request.signedInUID()
        let data = try CallData(request.data, usage: #"e.g. {"callId": "<call id>", "answer": "<SDP answer>"}"#)
        let callId = try data.key("callId", of: "call id")
        let answer = try data.sdp("answer")
        try await ChatChange.commit(call: callId, in: request.database) { snapshot throws(CallableError) in
            let (call, room) = try CallAccess.forMember(uid, call: callId, in: snapshot)
            // The state first: the loser of two racing answers learns the call is taken.
            guard call.state == .ringing else { throw CallAccess.notRinging(call, action: "answered") }
            try Self.requireCallee(uid, of: call)
            let path = CallRecord.path(callId)
            var change = ChatChange(updates: [
                .set(path.child(ChildKey("state")), .string(CallState.accepted.rawValue)),
                .set(path.child(ChildKey("callee")), .string(uid)),
                .set(path.child(ChildKey("answer")), .string(answer)),
                .set(path.child(ChildKey("answeredAt")), .serverTimestamp),
                .delete(CallRecord.ringingMarker(call.chatId)),
            ])
            change.require { call.isUnchanged(in: $0) && room.isUnchanged(in: $0) }
            return change
        }
        return .object([])
    }

    /// - Throws: `PERMISSION_DENIED` when `uid` is the call's caller, or not its callee where
    ///   one was named (a private call).
    static func requireCallee(_ uid: String, of call: CallRecord) throws(CallableError) {
        guard uid != call.caller else {
            throw CallableError(
                .permissionDenied,
                "The caller '\(uid)' placed the call '\(call.id)'; only a callee answers or declines it (endCall cancels it)."
            )
        }
        if let callee = call.callee, callee != uid {
            throw CallableError(
                .permissionDenied,
                "The call '\(call.id)' is for '\(callee)', not for the caller '\(uid)'."
            )
        }
    }
}
