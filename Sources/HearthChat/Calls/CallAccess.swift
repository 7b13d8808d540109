import HearthCore
import HearthFunctions

/// How the call callables find the call a caller names: a call of a chat the caller is a
/// member of. Any other call (unknown, or of a chat the caller is not in) answers the same
/// `NOT_FOUND`, so nobody learns which calls exist in others' chats.
enum CallAccess {
    /// The call `id` and its chat, for a caller who is a member of the chat.
    /// - Throws: `NOT_FOUND` naming `callId` otherwise.
    static func forMember(
        _ uid: String,
        call id: String,
        in snapshot: CallableSnapshot
    ) throws(CallableError) -> (call: CallRecord, room: ChatRoom) {
        guard let call = CallRecord.read(id, in: snapshot), let room = ChatRoom.read(call.chatId, in: snapshot),
            room.members[uid] != nil
        else {
            throw CallableError(
                .notFound,
                "'callId' names '\(id)', which is not a call of a chat the caller '\(uid)' is a member of."
            )
        }
        return (call, room)
    }

    /// The call `id`, for a caller who is a member of its chat or one of its two parties (a
    /// party who left the chat, or whose chat was deleted, can still hang up).
    /// - Throws: `NOT_FOUND` naming `callId` otherwise.
    static func forMemberOrParty(
        _ uid: String,
        call id: String,
        in snapshot: CallableSnapshot
    ) throws(CallableError) -> CallRecord {
        if let call = CallRecord.read(id, in: snapshot), call.isParty(uid) { return call }
        return try forMember(uid, call: id, in: snapshot).call
    }

    /// `FAILED_PRECONDITION`: `call` is not ringing, so `action` cannot be done.
    static func notRinging(_ call: CallRecord, action: String) -> CallableError {
        CallableError(
            .failedPrecondition,
            "The call '\(call.id)' is '\(call.state.rawValue)', not 'ringing': only a ringing call can be \(action)."
        )
    }
}

extension CallData {
    /// The most bytes of UTF-8 in an SDP offer or answer.
    static let maxSDPBytes = 65_536

    /// A required SDP text (an offer or answer): a non-empty string of at most
    /// `maxSDPBytes` bytes of UTF-8.
    func sdp(_ field: String) throws(CallableError) -> String {
        let text = try string(field)
        guard !text.isEmpty else {
            throw .invalidArgument("'\(field)' is empty; send the SDP \(field) of the peer connection.")
        }
        let bytes = text.utf8.count
        guard bytes <= Self.maxSDPBytes else {
            throw .invalidArgument("'\(field)' is \(bytes) bytes long; the limit is \(Self.maxSDPBytes) bytes.")
        }
        return text
    }
}
