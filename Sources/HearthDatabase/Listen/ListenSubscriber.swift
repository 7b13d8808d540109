public import HearthProtocol

/// Receives the pushes of the listens it registered (usually one per connection).
public protocol ListenSubscriber: AnyObject, Sendable {
    /// Called in commit order from the engine's delivery queue; must not block (enqueue into the
    /// connection's bounded outbound queue). `update` is shared by every subscriber of the same
    /// (path, query); send it with `RealtimeSession.push(encoded:for: registration.key)`.
    ///
    /// Deliveries for a registration may arrive before `NamespaceEngine.listen` has returned.
    /// They follow `ListenStart.data` (they carry only commits the initial read did not see), so
    /// the connection must send that data before them: handle deliveries and listen completions
    /// in one serial loop, in the order they arrive, and complete the listen before handling
    /// deliveries that arrived while it waited.
    func deliver(_ update: EncodedUpdate, for registration: ListenRegistration)
}
