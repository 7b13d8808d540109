/// A chat group as the chat app's `createGroup` leaves it, written by the admin in one `PATCH /`:
/// `chats/<chat>` (owned by the first user), every user under `members/<chat>`, and every
/// user's chat-list entry `userChats/<uid>/<chat>` with `unread` 0. The users need no accounts:
/// the message trigger counts for whoever the member list names.
struct ChatGroupSeed {
    let chat: String
    let users: [String]
    var name = "Bench"

    init(chat: String, users: [String]) {
        self.chat = chat
        self.users = users
    }

    var body: String {
        var body = #"{"chats/\#(chat)":{"type":"group","name":"\#(name)","owner":"\#(users[0])","createdAt":1}"#
        for (index, user) in users.enumerated() {
            let role = index == 0 ? "owner" : "member"
            body += #","members/\#(chat)/\#(user)":{"role":"\#(role)","joinedAt":1}"#
            body += #","userChats/\#(user)/\#(chat)":{"unread":0,"name":"\#(name)"}"#
        }
        return body + "}"
    }

    /// Writes the group over `connection`; throws unless the server accepts it.
    func write(over connection: HTTPConnection, to target: ServerTarget) async throws {
        let reply = try await connection.send(RequestBuilder("PATCH", "/", body: Array(body.utf8), target: target))
        try reply.expectSuccess("PATCH / (the group \(chat))")
    }

    /// A text message from `sender`, stamped by the server, as a client posts it.
    static func message(from sender: String) -> String {
        #"{"kind":"text","sender":"\#(sender)","sentAt":{".sv":"timestamp"},"text":"hello world"}"#
    }
}
