public import HearthCore
public import HearthFunctions

/// `declineCall {callId}` → `{}`: a callee turns down a ringing call.
///
/// In a private chat the call ends `declined` (with its call message, `CallEnding`). In a group
/// one member's decline stops the call ringing for that member only: it is noted in
/// `calls/$callId/declinedBy/$uid` and the call keeps ringing for the others (anyone may still
/// answer, the decliner too), until every other member has declined: then it ends `declined`.
/// A group call that nobody answers and not everyone declines ends `missed` by the timer. Each
/// write commits only while the call is exactly as read.
///
/// Refusals as `answerCall`'s (`NOT_FOUND`, `PERMISSION_DENIED`, `FAILED_PRECONDITION`).
public struct DeclineCall: Callable {
    public init() {}

    public var name: String { "declineCall" }

    public func call(_ request: CallRequest) async throws(CallableError) -> JSONValue {
        let uid = try request.signedInUID()
        let data = try CallData(request.data, usage: #"e.g. {"callId": "<call id>"}"#)
        let callId = try data.key("callId", of: "call id")
        let messageId = CallRecord.ids.next()
        try await ChatChange.commit(call: callId, in: request.database) {
            [database = request.database] snapshot throws(CallableError) in
            let (call, room) = try CallAccess.forMember(uid, call: callId, in: snapshot)
            // The state first: the loser of two racing answers learns the call is taken.
            guard call.state == .ringing else { throw CallAccess.notRinging(call, action: "declined") }
            try AnswerCall.requireCallee(uid, of: call)
            let callees = Set(room.members.keys).subtracting([call.caller])
            let declined = call.declinedBy.union([uid])
            var change: ChatChange
            if room.isGroup && !callees.isSubset(of: declined) {
                change = ChatChange(updates: [
                    .set(CallRecord.path(callId).child(ChildKey("declinedBy")).child(ChildKey(uid)), true)
                ])
            } else {
                let ending = CallEnding(call: call, state: .declined, endedAt: database.now(), messageId: messageId)
                change = ChatChange(updates: ending.updates)
            }
            change.require { call.isUnchanged(in: $0) && room.isUnchanged(in: $0) }
            return change
        }
        return .object([])
    }
}
