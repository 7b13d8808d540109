public import HearthFunctions

/// The chat app's server side (`../shared/CONTRACT.md`, "The chat app"), registered in one place
/// for the `default` namespace and the ones `hearth serve --chat-ns` names: its callables (here)
/// and its write triggers (`ChatApp+Triggers.swift`).
public enum ChatApp {
    /// The chat callables, in contract order.
    public static var callables: [any Callable] {
        [
            CreateChat(), CreateGroup(), UpdateGroup(), AddMembers(), RemoveMember(), MarkRead(), DeleteMessage(),
            DeleteChat(), AcceptChat(), BlockUser(), UnblockUser(),
            StartCall(), AnswerCall(), DeclineCall(), EndCall(),
        ]
    }

    /// Registers every chat callable for `namespaces`, `matchContacts` with `quota` (one for
    /// the whole server: a caller's quota is the same in every namespace), and what deleting an
    /// account removes there (`ChatAccountDeletion`).
    public static func register(
        in callables: inout Callables,
        namespaces: Set<String>,
        quota: ContactLookupQuota = ContactLookupQuota()
    ) throws(CallableError) {
        for callable in [MatchContacts(quota: quota), SearchUsers()] + Self.callables {
            try callables.add(callable, in: .namespaces(namespaces))
        }
        callables.add(ChatAccountDeletion(), in: namespaces)
    }
}
