/// One complete message from the client, as sent by the Firebase SDKs: a control message
/// (`{"t":"c","d":{"t":...}}`) or a request (`{"t":"d","d":{"r":N,"a":ACTION,"b":BODY}}`).
public enum ClientMessage: Sendable, Equatable {
    /// A transport-level control message.
    case control(ClientControl)
    /// A numbered request.
    case request(ClientRequest)
    /// A numbered request the server cannot perform (unknown action, invalid path, bad body):
    /// it is answered, in order, with an error response.
    case invalidRequest(RequestID, ProtocolError)
}

/// The control messages an SDK sends (`Connection.ts`).
public enum ClientControl: Sendable, Equatable {
    /// `{"t":"c","d":{"t":"p","d":{}}}`: a ping while the connection is not yet "healthy";
    /// answered with a pong (`o`).
    case ping
    /// `a`: the client acknowledges a transport switch (long-poll upgrade; unused over WebSocket).
    case switchAcknowledged
    /// `n`: the client ends transmission on an old transport (long-poll upgrade).
    case endTransmission
    /// Any other control command, ignored.
    case other(String)
}
