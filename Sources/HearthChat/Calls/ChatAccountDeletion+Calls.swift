import HearthCore
import HearthFunctions

extension ChatAccountDeletion {
    /// Ends the ringing calls of a user whose account is being deleted, before they leave
    /// their chats: one they placed is `cancelled`; one ringing for them in a private chat (they
    /// are its callee) is `missed`, as it would be 45 s later, for nobody can answer it now. A
    /// group call ringing for them rings on for the others. An answered call is left to the
    /// remaining party to end. Each ending is the call's usual commit (`CallEnding`), only while
    /// the call is still as read; a retry of the deletion finds nothing more to end.
    static func endRingingCalls(
        of uid: String,
        in chats: [String],
        database: CallableDatabase
    ) async throws(CallableError) {
        for chatId in chats {
            let messageId = CallRecord.ids.next()
            try await ChatChange.commit(chat: chatId, in: database) { snapshot in
                guard let callId = snapshot.node(at: CallRecord.ringingMarker(chatId))?.string,
                    let call = CallRecord.read(callId, in: snapshot), call.state == .ringing
                else { return ChatChange() }
                let state: CallState
                if call.caller == uid {
                    state = .cancelled
                } else if call.callee == uid {
                    state = .missed
                } else {
                    return ChatChange()
                }
                let ending = CallEnding(call: call, state: state, endedAt: database.now(), messageId: messageId)
                var change = ChatChange(updates: ending.updates)
                change.require { call.isUnchanged(in: $0) }
                return change
            }
        }
    }
}
