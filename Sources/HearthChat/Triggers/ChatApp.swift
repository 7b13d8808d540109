public import HearthStore

/// The chat app's server side, registered in one place: `ChatApp.register(in:namespaces:)`
/// adds its triggers for the namespaces that run it (`default` and those of `--chat-ns`).
public enum ChatApp {
    /// The chat app's write triggers.
    public static var triggers: [any WriteTrigger] { [MessageTrigger()] }

    /// Adds the chat app's triggers to `triggers` for each of `namespaces`.
    /// - Throws: `StoreError` `.invalidWrite` if a pattern is refused (never for the shipped ones).
    public static func register(in triggers: inout WriteTriggers, namespaces: [String]) throws {
        for namespace in namespaces {
            for trigger in Self.triggers { try triggers.add(trigger, in: .namespace(namespace)) }
        }
    }
}
