import HearthCore

/// Every contact list naming a user: `contacts/$uid/$contactUid` found by `$contactUid`, so that
/// deleting an account removes the entries naming it from others' lists without reading every
/// list.
struct ContactLookup: LookupIndex {
    static let name = "chat.contactsNaming"
    var name: String { Self.name }
    var pattern: String { "/contacts/$uid/$contactUid" }
    var version: Int { 1 }

    func terms(of value: Node, wildcards: [String: String]) -> [String] {
        wildcards["contactUid"].map { [$0] } ?? []
    }
}
