public import HearthCore
public import HearthFunctions

/// `endCall {callId}` → `{}`: hangs up. The caller of a ringing call cancels it (`cancelled`);
/// either party of an answered call ends it (`ended`, `durationMs` = `endedAt - answeredAt`).
/// Either way the call message goes into the chat in the same commit (`CallEnding`), committed
/// only while the call is exactly as read (so a cancel racing an answer is one or the other).
///
/// Its parties may hang up even after leaving the chat. Refusals: a call of a chat the caller is
/// not in and not a party of `NOT_FOUND` (`CallAccess`); an answered call ended by
/// a member who is not one of its parties `PERMISSION_DENIED`; a ringing call ended by a callee
/// (who declines it with `declineCall`) and a call that is over `FAILED_PRECONDITION`.
public struct EndCall: Callable {
    public init() {}

    public var name: String { "endCall" }

    public func call(_ request: CallRequest) async throws(CallableError) -> JSONValue {
        let closing = try CallEndingRequest(request)
        let (uid, callId) = (closing.uid, closing.callId)
        return try await closing.commit { snapshot throws(CallableError) in
            let call = try CallAccess.forMemberOrParty(uid, call: callId, in: snapshot)
            let state: CallState
            switch call.state {
            case .ringing:
                guard uid == call.caller else {
                    throw CallableError(
                        .failedPrecondition,
                        "The call '\(callId)' is still ringing: a callee declines it with declineCall; endCall cancels it for its caller '\(call.caller)' only."
                    )
                }
                state = .cancelled
            case .accepted:
                guard call.isParty(uid) else {
                    throw CallableError(
                        .permissionDenied,
                        "The call '\(callId)' is between '\(call.caller)' and '\(call.callee ?? "")'; only they end it, not the caller '\(uid)'."
                    )
                }
                state = .ended
            case .declined, .missed, .cancelled, .ended:
                throw CallableError(
                    .failedPrecondition,
                    "The call '\(callId)' is already over ('\(call.state.rawValue)'); there is nothing to end."
                )
            }
            var ending = closing.ending(call, as: state)
            let chat = DataPath("chats", call.chatId)
            let chatExists = snapshot.exists(chat)
            ending.chatExists = chatExists
            var change = ChatChange(updates: ending.updates)
            change.require { call.isUnchanged(in: $0) && $0.exists(chat) == chatExists }
            return change
        }
    }
}
