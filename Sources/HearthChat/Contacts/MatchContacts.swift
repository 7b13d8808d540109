public import HearthCore
public import HearthFunctions

/// `matchContacts {phoneNumbers, emails?, defaultRegion?, add?}` → `{matches: [{uid,
/// displayName, phoneNumber, status, photoUrl, matched}]}`: the registered users among the
/// caller's contacts; with `add: true` also added to the caller's contact list
/// (`ContactAddition`). Numbers are normalised to E.164 (`ContactInputs`) and found in the
/// phone index, a lookup index no client can read (`PhoneNumberLookup`); e-mails are found among the
/// accounts (the account's address, not what a profile claims). Each matched user appears
/// once, with the inputs (as sent) that matched them; the caller never appears. The caller's
/// quota of distinct inputs is charged first (`ContactLookupQuota`): past it nothing is looked
/// up and the answer is `RESOURCE_EXHAUSTED` with a retry time.
public struct MatchContacts: Callable {
    let quota: ContactLookupQuota

    public init(quota: ContactLookupQuota) {
        self.quota = quota
    }

    public var name: String { "matchContacts" }

    /// The most users one number finds (several profiles may share a number).
    static let usersPerNumber = 16

    public func call(_ request: CallRequest) async throws(CallableError) -> JSONValue {
        let uid = try request.signedInUID()
        let data = try CallData(request.data, usage: ContactInputs.usage)
        let add = try data.optionalBool("add")
        let inputs = try await ContactInputs(data) { () async throws(CallableError) -> String? in
            try await request.database.read { snapshot in
                snapshot.node(at: DataPath("users", uid, "phoneNumber"))?.stringLeaf
            }
        }
        do {
            try quota.charge(uid, inputs: inputs.quotaInputs)
        } catch {
            throw Self.exhausted(error, limits: quota.limits)
        }
        // E-mails: the accounts' own index.
        let emailMatches = inputs.emails.compactMap { sent, address -> (sent: String, uid: String)? in
            guard let account = request.accounts.account(email: address), !account.disabled else { return nil }
            return (sent, account.localId)
        }
        let accounts = request.accounts
        let numbers = inputs.numbers
        let lookup = { @Sendable (snapshot: CallableSnapshot) -> [JSONValue] in
            var matched = MatchedUsers(caller: uid)
            for (sent, e164) in numbers {
                for location in snapshot.lookup(PhoneNumberLookup.name, term: e164, limit: Self.usersPerNumber) {
                    matched.add(location.keys[1].string, sent)
                }
            }
            for (sent, found) in emailMatches { matched.add(found, sent) }
            return matched.results { found in
                guard accounts.isActive(uid: found) else { return nil }
                return snapshot.node(at: DataPath("users", found))
            }
        }
        let matches: [JSONValue]
        if add {
            matches = try await ContactAddition.commit(for: uid, in: request.database, lookup: lookup)
        } else {
            matches = try await request.database.read(lookup)
        }
        return ["matches": .array(matches)]
    }

    private static func exhausted(
        _ refusal: ContactLookupQuota.Refusal,
        limits: ContactLookupQuota.Limits
    ) -> CallableError {
        let asked = "'phoneNumbers' and 'emails' hold \(refusal.newInputs) entries the caller has not looked up before"
        guard let wait = refusal.retryAfterSeconds else {
            return CallableError(
                .resourceExhausted,
                "\(asked), more than the whole quota of \(limits.capacity); send at most \(limits.capacity) new entries per call.",
                details: [
                    "newInputs": .number(Double(refusal.newInputs)), "available": .number(Double(refusal.available)),
                ]
            )
        }
        return CallableError(
            .resourceExhausted,
            "\(asked), and the caller's quota allows \(refusal.available) now; try again in \(wait) seconds (entries looked up before are free).",
            details: [
                "newInputs": .number(Double(refusal.newInputs)), "available": .number(Double(refusal.available)),
                "retryAfterSeconds": .number(Double(wait)),
            ],
            retryAfterSeconds: wait
        )
    }
}

/// The users an address book matched, in the order of their first matching input.
private struct MatchedUsers {
    let caller: String
    private var order: [String] = []
    private var inputs: [String: [String]] = [:]

    init(caller: String) {
        self.caller = caller
    }

    mutating func add(_ uid: String, _ sent: String) {
        guard uid != caller else { return }
        if inputs[uid] == nil { order.append(uid) }
        inputs[uid, default: []].append(sent)
    }

    /// One result per registered user (`profile` nil: not registered), with the contract's
    /// fields only.
    func results(profile: (String) -> Node?) -> [JSONValue] {
        order.compactMap { uid in
            guard let profile = profile(uid), let displayName = profile.string("displayName") else { return nil }
            var fields: [(String, JSONValue)] = [("uid", .string(uid)), ("displayName", .string(displayName))]
            for field in ["phoneNumber", "status", "photoUrl"] {
                if let value = profile.string(field) { fields.append((field, .string(value))) }
            }
            fields.append(("matched", .array((inputs[uid] ?? []).map { .string($0) })))
            return .object(fields)
        }
    }
}

extension Node {
    /// The string of a string leaf.
    var stringLeaf: String? {
        guard case .leaf(.string(let text), _) = self else { return nil }
        return text
    }
}
