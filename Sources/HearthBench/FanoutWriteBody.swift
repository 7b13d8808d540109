/// The body of one chat message written with its members' counters as one multi-path update
/// (the Firebase client fan-out pattern), relative to the run's location:
///
///     {"messages/g<C>/c<K>s<SEQ>": {"kind":"text","sender":"u000","sentAt":1700000000000,"text":"hello world"},
///      "userChats/u001/g<C>/unread": {".sv":{"increment":1}},
///      "userChats/u001/g<C>/lastMessageAt": 1700000000000,
///      "unreadTotals/u001": {".sv":{"increment":1}},
///      … for every other member u001 … u<members-1>}
///
/// 1 + 3 × (members − 1) locations, the same as `../shared/anchors/leveldb-fanout`. Messages go to
/// four chats in turn, so the counters are hot keys; `unreadTotals` is shared by all four. The
/// part after the message is encoded once per chat.
struct FanoutWriteBody: Sendable {
    static let chats = 4
    static let sentAt = "1700000000000"

    let members: Int
    private let tails: [[UInt8]]

    init(members: Int) {
        self.members = members
        tails = (0..<Self.chats).map { chat in
            var tail = ""
            for member in 1..<max(members, 1) {
                let user = FanoutWriteBody.user(member)
                tail += #","userChats/\#(user)/g\#(chat)/unread":{".sv":{"increment":1}}"#
                tail += #","userChats/\#(user)/g\#(chat)/lastMessageAt":\#(FanoutWriteBody.sentAt)"#
                tail += #","unreadTotals/\#(user)":{".sv":{"increment":1}}"#
            }
            return Array((tail + "}").utf8)
        }
    }

    /// LevelDB keys the anchor writes per message, the same count as locations here.
    var locations: Int { 1 + 3 * (members - 1) }

    /// `u001`, `u042`, `u499`: at least three digits, as the anchor spells them.
    static func user(_ member: Int) -> String {
        let digits = String(member)
        return "u" + String(repeating: "0", count: max(0, 3 - digits.count)) + digits
    }

    /// The chat of message `sequence` of connection `connection` (each connection cycles through all four).
    static func chat(connection: Int, sequence: Int) -> Int { (connection + sequence) % chats }

    /// Appends the JSON object of message `sequence` of connection `connection`.
    func append(connection: Int, sequence: Int, to out: inout [UInt8]) {
        let chat = Self.chat(connection: connection, sequence: sequence)
        out.append(contentsOf: Self.messageHead)
        appendDecimal(chat, to: &out)
        out.append(contentsOf: Self.connectionMark)
        appendDecimal(connection, to: &out)
        out.append(contentsOf: Self.sequenceMark)
        appendDecimal(sequence, to: &out)
        out.append(contentsOf: Self.message)
        out.append(contentsOf: tails[chat])
    }

    /// The byte count of `append`'s output (for `Content-Length`).
    func byteCount(connection: Int, sequence: Int) -> Int {
        let chat = Self.chat(connection: connection, sequence: sequence)
        return Self.messageHead.count + String(chat).utf8.count + Self.connectionMark.count
            + String(connection).utf8.count + Self.sequenceMark.count + String(sequence).utf8.count
            + Self.message.count + tails[chat].count
    }

    private static let messageHead = Array(#"{"messages/g"#.utf8)
    private static let connectionMark = Array("/c".utf8)
    private static let sequenceMark = Array("s".utf8)
    private static let message = Array(
        #"":{"kind":"text","sender":"u000","sentAt":\#(sentAt),"text":"hello world"}"#.utf8
    )
}
