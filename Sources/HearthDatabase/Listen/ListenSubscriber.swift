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

    /// The listen lost read access (a write changed what its read rule depends on, or the
    /// namespace's rules changed): the engine has unregistered it and delivers nothing more for
    /// it. Called from the delivery queue after every delivery for the registration; tell the
    /// client (`c` over WebSocket, `cancel` over SSE) and forget the listen. Must not block.
    func revoked(_ registration: ListenRegistration)
}
