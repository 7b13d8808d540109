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
        let closing = try CallEndingRequest(request)
        let (uid, callId) = (closing.uid, closing.callId)
        return try await closing.commit { snapshot throws(CallableError) in
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
                change = ChatChange(updates: closing.ending(call, as: .declined).updates)
            }
            change.require { call.isUnchanged(in: $0) && room.isUnchanged(in: $0) }
            return change
        }
    }
}
