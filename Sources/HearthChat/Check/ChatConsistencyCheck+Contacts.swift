import HearthCore

extension ChatConsistencyCheck {
    /// `contacts/$uid/$contactUid`: every list belongs to a registered user (a profile with a
    /// `displayName`) and names other registered users, each entry exactly `{addedAt: number,
    /// favorite: boolean}`. A deleted account leaves neither its own list nor entries naming
    /// it.
    func contactDisagreements() -> [String] {
        var found: [String] = []
        var registered: [String: Bool] = [:]
        func isRegistered(_ uid: String) -> Bool {
            if let known = registered[uid] { return known }
            let known = reader.node(at: path("users", uid))?.string("displayName") != nil
            registered[uid] = known
            return known
        }
        for uid in keys(at: path("contacts")) {
            guard case .children(let entries, _)? = reader.node(at: path("contacts", uid)) else {
                found.append("contacts/\(uid) is \(Self.describe(reader.node(at: path("contacts", uid)))), not a list")
                continue
            }
            if !isRegistered(uid) {
                found.append("contacts/\(uid) is the contact list of '\(uid)', who is not a registered user")
            }
            for (key, entry) in zip(entries.keys, entries.nodes) {
                let contact = key.string
                let at = "contacts/\(uid)/\(contact)"
                if contact == uid {
                    found.append("\(at) names its owner")
                } else if !isRegistered(contact) {
                    found.append("\(at) names '\(contact)', who is not a registered user")
                }
                if !Self.isContactEntry(entry) {
                    found.append("\(at) is \(Self.describe(entry)), not {addedAt: <number>, favorite: <boolean>}")
                }
            }
        }
        return found
    }

    /// Exactly `{addedAt: number, favorite: boolean}`.
    private static func isContactEntry(_ entry: Node) -> Bool {
        guard case .children(let fields, _) = entry, fields.keys.count == 2,
            entry.number("addedAt") != nil,
            case .leaf(.bool, _)? = entry.child(ChildKey("favorite"))
        else { return false }
        return true
    }
}
