import HearthCore
public import HearthDatabase

extension ChatApp {
    /// The chat app's write triggers; with `pushes`, messages and incoming calls queue push
    /// notifications (`PushIntent`).
    public static func triggers(pushes: Bool = false) -> [any TreeTrigger] {
        [MessageTrigger(queuesPushes: pushes), ContactAddedTrigger()] + (pushes ? [CallPushTrigger()] : [])
    }

    /// The chat app's lookup indexes (server-side, readable by no client): phone numbers for
    /// `matchContacts`, display-name words for `searchUsers`, memberships, contact entries and
    /// block entries naming a user for account deletion.
    static var lookups: [any LookupIndex] {
        [PhoneNumberLookup(), NameWordsLookup(), MembershipLookup(), ContactLookup(), BlockLookup()]
    }

    /// Adds the chat app's triggers and lookup indexes to `triggers` for each of `namespaces` (`default` and those
    /// of `--chat-ns`).
    /// - Throws: `StoreError` `.invalidWrite` if a pattern is refused (never for the shipped ones).
    public static func register(
        in triggers: inout DatabaseTriggers,
        namespaces: Set<String>,
        pushes: Bool = false
    ) throws {
        for namespace in namespaces.sorted() {
            for trigger in Self.triggers(pushes: pushes) { try triggers.add(trigger, in: .namespace(namespace)) }
        }
        try registerLookups(in: &triggers, namespaces: namespaces)
    }

    /// Adds only the chat app's lookup indexes (what its callables read) to `triggers`.
    public static func registerLookups(in triggers: inout DatabaseTriggers, namespaces: Set<String>) throws {
        for namespace in namespaces.sorted() {
            for lookup in Self.lookups { try triggers.add(lookup, in: .namespace(namespace)) }
        }
    }
}
