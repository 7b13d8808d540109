public import HearthCore
public import HearthFunctions

/// `startCall {chatId, kind: "audio"|"video", offer}` → `{callId}`: a member rings the chat.
/// One atomic write adds `calls/<push id>` = `{chatId, caller, callee (a private chat's other
/// party; in a group, whoever answers first), kind, state: "ringing", createdAt, offer}` and the
/// chat's ringing marker (`CallRecord.ringingMarker`), committed only while the chat has no
/// ringing call and its roster is as read (judged on the writer), so there is one ringing call
/// per chat however many start at once. The missed-call timer ends it 45 s later unless
/// someone answers, declines or cancels it first.
///
/// Refusals: an unknown chat `NOT_FOUND`, a chat the caller is not a member of
/// `PERMISSION_DENIED` (as the other chat callables answer); a private chat whose other party
/// blocks the caller or is blocked by them, or has left, `NOT_FOUND` as if that party were not a
/// registered user (as `createChat` answers, without revealing a block); a group without
/// another member and a chat already ringing `FAILED_PRECONDITION`.
public struct StartCall: Callable {
    public init() {}

    public var name: String { "startCall" }

    public func call(_ request: CallRequest) async throws(CallableError) -> JSONValue {
        let uid = try request.signedInUID()
        let data = try CallData(
            request.data,
            usage: #"e.g. {"chatId": "<chat id>", "kind": "audio", "offer": "<SDP offer>"}"#
        )
        let chatId = try data.key("chatId", of: "chat id")
        let kind = try data.string("kind")
        guard kind == "audio" || kind == "video" else {
            throw .invalidArgument("'kind' is '\(kind.prefix(64))'; a call is 'audio' or 'video'.")
        }
        let offer = try data.sdp("offer")
        let callId = CallRecord.ids.next()
        try await ChatChange.commit(chat: chatId, in: request.database) { snapshot throws(CallableError) in
            let room = try ChatRoom.forMember(uid, of: chatId, in: snapshot)
            let others = room.members.keys.filter { $0 != uid }
            var call: [(String, JSONValue)] = [
                ("chatId", .string(chatId)), ("caller", .string(uid)), ("kind", .string(kind)),
                ("state", .string(CallState.ringing.rawValue)), ("createdAt", .serverTimestamp),
                ("offer", .string(offer)),
            ]
            if room.isGroup {
                guard !others.isEmpty else {
                    throw CallableError(.failedPrecondition, "The group '\(chatId)' has no other member to call.")
                }
            } else {
                guard let other = others.first, !BlockList.blocks(other, uid, in: snapshot),
                    !BlockList.blocks(uid, other, in: snapshot)
                else {
                    throw CallableError(
                        .notFound,
                        "'chatId' names the private chat '\(chatId)', whose other party is not a registered user."
                    )
                }
                call.append(("callee", .string(other)))
            }
            let marker = CallRecord.ringingMarker(chatId)
            if let ringing = snapshot.node(at: marker)?.string {
                throw CallableError(
                    .failedPrecondition,
                    "The chat '\(chatId)' already has the ringing call '\(ringing)': one ringing call per chat; answer, decline or end it first."
                )
            }
            let blocks = room.isGroup ? [] : Self.blocks(between: uid, and: others, in: snapshot)
            var change = ChatChange(updates: [
                .set(CallRecord.path(callId), .object(call)), .set(marker, .string(callId)),
            ])
            change.require { !$0.exists(marker) && room.isUnchanged(in: $0) }
            change.require { room.isGroup || Self.blocks(between: uid, and: others, in: $0) == blocks }
            return change
        }
        return ["callId": .string(callId)]
    }

    /// Which of the pair's block entries exist (both directions), to check that none appeared.
    private static func blocks(between uid: String, and others: [String], in snapshot: CallableSnapshot) -> [Bool] {
        others.flatMap { [BlockList.blocks($0, uid, in: snapshot), BlockList.blocks(uid, $0, in: snapshot)] }
    }
}
