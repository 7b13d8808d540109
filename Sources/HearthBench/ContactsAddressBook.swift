/// The `matchContacts` address book of the `contacts` scenario, as people type it in the US:
/// ~20 % numbers of registered users (a few of them twice, in two forms), ~60 % numbers of
/// profiles without an account, the caller's own number, numbers nobody has, and a few entries
/// that are not phone numbers; shuffled. Knows which users the call must answer.
struct ContactsAddressBook {
    var entries: [String] = []
    /// The users the call must match (registered, not the caller), each with how many entries name it.
    var expected: [String: Int] = [:]
    var registered = 0
    var registeredTwice = 0
    var profilesWithoutAccount = 0
    var nobody = 0
    var unparsable = 0

    /// - Parameter accounts: the registered users; the first is the caller.
    init(size: Int, profiles: Int, accounts: [ContactsAccount]) {
        let others = accounts.dropFirst()
        var variant = 0
        func typed(_ serial: Int) -> String {
            variant += 1
            return ContactsPeople.typed(serial, variant: variant)
        }
        unparsable = min(ContactsPeople.unparsable.count, size / 10)
        entries += ContactsPeople.unparsable.prefix(unparsable)
        entries.append(typed(accounts[0].serial))  // the caller's own number: never a match

        registered = min(size / 5, others.count)
        registeredTwice = min(5, registered)
        for j in 0..<registered {
            let account = others[others.startIndex + j * others.count / registered]
            entries.append(typed(account.serial))
            expected[account.uid] = 1
            if j < registeredTwice {
                entries.append(typed(account.serial))
                expected[account.uid] = 2
            }
        }
        profilesWithoutAccount = min(size * 3 / 5, profiles, max(0, size - entries.count))
        for j in 0..<profilesWithoutAccount {
            entries.append(typed(1 + j * profiles / profilesWithoutAccount))
        }
        nobody = max(0, size - entries.count)
        for j in 0..<nobody {
            entries.append(typed(ContactsPeople.nobodySerialBase + j))
        }
        var random = SplitMix64(seed: 15)
        entries.shuffle(using: &random)
    }

    /// `{"phoneNumbers":[…]}` (no `defaultRegion`: the caller's own number makes it US).
    var callData: String {
        #"{"phoneNumbers":["# + entries.map(jsonString).joined(separator: ",") + "]}"
    }

    /// Nil when `result` matches exactly the expected users, each with its entries; else what differs.
    func disagreement(_ result: [String: Any]) -> String? {
        guard let matches = result["matches"] as? [[String: Any]] else { return "no 'matches' array" }
        var seen: [String: Int] = [:]
        for match in matches {
            guard let uid = match["uid"] as? String, let matched = match["matched"] as? [Any] else {
                return "a match without uid or matched: \(match)"
            }
            guard match["displayName"] is String else { return "match \(uid) has no displayName" }
            guard seen[uid] == nil else { return "\(uid) is matched twice" }
            seen[uid] = matched.count
        }
        guard seen == expected else {
            let unexpected = seen.keys.filter { expected[$0] == nil }.sorted().prefix(5)
            let missing = expected.keys.filter { seen[$0] == nil }.sorted().prefix(5)
            let miscounted = expected.keys.filter { seen[$0] != nil && seen[$0] != expected[$0] }.sorted().prefix(5)
            return "\(matches.count) matches, expected \(expected.count): unexpected \(Array(unexpected)), "
                + "missing \(Array(missing)), wrong 'matched' count \(Array(miscounted))"
        }
        return nil
    }
}
