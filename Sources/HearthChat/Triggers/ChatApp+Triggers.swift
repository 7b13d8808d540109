public import HearthStore

extension ChatApp {
    /// The chat app's write triggers.
    public static var triggers: [any WriteTrigger] { [MessageTrigger()] }

    /// Adds the chat app's triggers to `triggers` for each of `namespaces` (`default` and those
    /// of `--chat-ns`).
    /// - Throws: `StoreError` `.invalidWrite` if a pattern is refused (never for the shipped ones).
    public static func register(in triggers: inout WriteTriggers, namespaces: Set<String>) throws {
        for namespace in namespaces.sorted() {
            for trigger in Self.triggers { try triggers.add(trigger, in: .namespace(namespace)) }
        }
    }
}
