import HearthCore
import HearthProtocol

/// An engine registration as the connection state machine sees it: only its identity matters
/// (a push or revocation for a registration the connection no longer holds is dropped).
protocol RealtimeListenHandle: Sendable {
    /// Unique within the process.
    var id: UInt64 { get }
}

/// What `RealtimeChannelHandler` must do for its `RealtimeConnection`, in the order
/// `nextAction()` returns them.
enum RealtimeConnectionAction<Registration: RealtimeListenHandle> {
    /// Write one text frame the session emitted (encoded by the handler).
    case sendText([UInt8])
    /// Write the loop's shared frame of an untagged push (`RealtimeLoopInbox.frame(for:)`),
    /// joined with the batch's other small pushes when `joining`.
    case sendShared(EncodedUpdate, joining: Bool)
    /// Write a liveness ping.
    case sendPing
    /// Answer the client's ping.
    case sendPong([UInt8])
    /// Write a close frame; the TCP connection is dropped after `closeTimeout` unless the
    /// client answers first.
    case sendClose(CloseCode, reason: String)
    /// Answer the client's close frame (its code, if any), flush, and drop the TCP connection
    /// once it is written.
    case echoClose(code: UInt16?)
    /// Drop the TCP connection now.
    case dropConnection
    /// Flush everything written since the last flush.
    case flush
    /// Read from the socket again (a held read is released).
    case read
    /// Log that the connection was closed as a slow consumer.
    case reportSlowConsumer
    /// Register a listen (after dropping `replacing`, the one it replaces); answer with
    /// `listenCompleted`.
    case listen(ListenRequest, RequestID, AuthIdentity, replacing: Registration?)
    /// Apply a write through the namespace's writer; answer with `completed`.
    case write(WriteRequest, RequestID, AuthIdentity)
    /// Read once; answer with `completed`.
    case get(GetRequest, RequestID, AuthIdentity)
    /// Store an onDisconnect operation; answer with `completed`.
    case registerOnDisconnect(WriteRequest, RequestID, AuthIdentity)
    /// Cancel onDisconnect operations at and below the path; answer with `completed`.
    case cancelOnDisconnect(DataPath, RequestID, AuthIdentity)
    /// Verify a credential now, on the loop; answer with `completed` before the next action.
    case authenticate(AuthRequest, RequestID)
    /// The session acts as `identity` from now on (an `auth`, `unauth`, an expired or revoked
    /// credential): presence follows it. No answer.
    case identityChanged(AuthIdentity)
    /// Re-check these listens for a new identity; answer with `listensRechecked`.
    case recheckListens([(ListenKey, Registration)], AuthIdentity)
    /// Drop an engine registration (no answer).
    case unregister(Registration)
    /// The session is over: drop these registrations, run the connection's onDisconnect
    /// operations, leave the ticker and the hub. Once per connection.
    case finish([Registration])
}
