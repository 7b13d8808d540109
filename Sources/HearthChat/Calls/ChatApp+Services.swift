public import HearthFunctions

extension ChatApp {
    /// The chat app's work that runs while the server serves, for `namespaces` (`default` and
    /// those of `--chat-ns`): the missed-call timer (`MissedCallTimer`).
    public static func services(
        namespaces: Set<String>,
        calls: CallConfiguration = CallConfiguration()
    ) -> [any DatabaseService] {
        [MissedCallTimer(namespaces: namespaces.sorted(), configuration: calls)]
    }
}
