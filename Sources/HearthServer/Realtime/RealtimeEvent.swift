import HearthCore
import HearthDatabase
import HearthProtocol

/// What drives a WebSocket connection's loop: everything reaches the session through here, so
/// its state is only ever touched by that one loop.
enum RealtimeEvent: Sendable {
    /// A whole WebSocket text (or binary) message from the client.
    case frame([UInt8])
    /// A push from the engine for the listen `key` (registration `generation`).
    case update(EncodedUpdate, key: ListenKey, generation: UInt64)
    /// The engine revoked the listen `key` (registration `generation`): read access lost.
    case revoked(key: ListenKey, generation: UInt64)
    /// Time passes (credential expiry, idle timeout).
    case tick
    /// The server is shutting down: close with 1001.
    case drain
    /// The client's side of the socket ended (close frame, reset, EOF).
    case inboundEnded
}

/// Forwards the engine's pushes for one listen into its connection's event stream (never
/// blocks: the stream buffers, the loop moves them to the bounded outbound queue).
final class ListenForwarder: ListenSubscriber {
    let key: ListenKey
    let generation: UInt64
    let events: AsyncStream<RealtimeEvent>.Continuation

    init(key: ListenKey, generation: UInt64, events: AsyncStream<RealtimeEvent>.Continuation) {
        self.key = key
        self.generation = generation
        self.events = events
    }

    func deliver(_ update: EncodedUpdate, for registration: ListenRegistration) {
        events.yield(.update(update, key: key, generation: generation))
    }

    func revoked(_ registration: ListenRegistration) {
        events.yield(.revoked(key: key, generation: generation))
    }
}
