public import HearthFunctions

/// The chat app's server side (`../shared/CONTRACT.md`, "The chat app"): its callables, served
/// in the `default` namespace and in the ones `hearth serve --chat-ns` names.
public enum ChatApp {
    /// The chat callables, in contract order.
    public static var callables: [any Callable] {
        [
            CreateChat(), CreateGroup(), UpdateGroup(), AddMembers(), RemoveMember(), MarkRead(), DeleteMessage(),
            DeleteChat(),
        ]
    }

    /// Registers every chat callable for `namespaces`.
    public static func register(in callables: inout Callables, namespaces: Set<String>) throws(CallableError) {
        for callable in Self.callables {
            try callables.add(callable, in: .namespaces(namespaces))
        }
    }
}
