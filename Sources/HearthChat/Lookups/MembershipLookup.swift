import HearthCore

/// Every chat a user is a member of: `members/$chatId/$uid` found by the uid, so that deleting
/// an account leaves each of its chats without reading every chat's member list.
struct MembershipLookup: LookupIndex {
    static let name = "chat.memberships"
    var name: String { Self.name }
    var pattern: String { "/members/$chatId/$uid" }
    var version: Int { 1 }

    func terms(of value: Node, wildcards: [String: String]) -> [String] {
        wildcards["uid"].map { [$0] } ?? []
    }
}
