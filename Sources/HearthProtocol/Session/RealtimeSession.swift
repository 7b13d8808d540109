import HearthCore

/// The Firebase realtime protocol (v5) for one connection, as a state machine without I/O:
/// each event (`connected`, `received`, `completed`, `tick`, `closed`) returns the actions the
/// code around it must perform, in order. Requests are handled strictly in the order received:
/// while one waits for its `completed(_:for:)`, later requests stay queued.
///
/// The session frames and parses messages, answers pings, tracks the connection's listens
/// (path + canonical query + tag) and its identity, and encodes every response and push;
/// the database work (rules, reads, writes, listener registry, onDisconnect storage,
/// credential checks) is the caller's, requested through `SessionAction`s.
public struct RealtimeSession: Sendable {
    /// Where the connection is in its life.
    public enum Phase: Sendable, Equatable {
        /// Created; `connected(host:now:)` sends the hello.
        case idle
        /// The hello was sent; requests flow.
        case open
        /// Closed (by either side); every event returns no actions.
        case closed
    }

    /// A listen this connection holds: pending until its outcome arrives, then active. Its
    /// path is its key's; the hash the client sent matters only to the listen's start. A query
    /// other than the default is held out of line: most listens have none, and a dictionary
    /// holds twice its entries' size (`hearthload w3`).
    struct ListenRecord: Sendable {
        private var customQuery: QueryBox?
        var tag: Int64?
        var isActive: Bool

        init(query: Query, tag: Int64?, isActive: Bool) {
            customQuery = query == Query() ? nil : QueryBox(query)
            self.tag = tag
            self.isActive = isActive
        }

        var query: Query { customQuery?.query ?? Query() }
    }

    /// A listen's query other than the default.
    final class QueryBox: Sendable {
        let query: Query

        init(_ query: Query) {
            self.query = query
        }
    }

    /// A request in flight.
    final class InFlightRequest: Sendable {
        let request: ClientRequest

        init(_ request: ClientRequest) {
            self.request = request
        }
    }

    /// A request waiting its turn.
    enum QueuedRequest: Sendable {
        case request(ClientRequest)
        case invalid(RequestID, ProtocolError)
    }

    /// The session id sent in the hello (`s`); clients send it back as `ls` when they reconnect.
    public let sessionID: String
    public let configuration: RealtimeSessionConfiguration
    public internal(set) var phase: Phase = .idle
    /// Who the connection acts as; put on every database action.
    public internal(set) var identity: AuthIdentity = .anonymous

    var assembler: FrameAssembler
    var queue: [QueuedRequest] = []
    var queueHead = 0
    /// The request whose outcome the session waits for, held out of line: an idle session
    /// keeps a reference, not a whole request (`hearthload w3`).
    var inFlight: InFlightRequest?
    var listens: [ListenKey: ListenRecord] = [:]
    var lastActivity: Timestamp?

    public init(sessionID: String, configuration: RealtimeSessionConfiguration = RealtimeSessionConfiguration()) {
        self.sessionID = sessionID
        self.configuration = configuration
        self.assembler = FrameAssembler(maxMessageBytes: configuration.maxMessageBytes)
    }

    // MARK: Inspection

    /// Requests received and not yet answered (queued, plus the one in flight). A server should
    /// stop reading the socket while this is high, so that one client cannot queue unbounded work.
    public var pendingRequestCount: Int { queue.count - queueHead + (inFlight == nil ? 0 : 1) }

    /// The request whose outcome the session is waiting for.
    public var requestInFlight: RequestID? { inFlight?.request.id }

    /// The number of listens held (pending and active).
    public var listenCount: Int { listens.count }

    /// The listen registered under `key`, if any.
    public func listen(for key: ListenKey) -> ListenRequest? {
        listens[key].map { ListenRequest(path: key.path, query: $0.query, tag: $0.tag) }
    }

    /// Every listen key held, sorted by path then query.
    public var listenKeys: [ListenKey] {
        listens.keys.sorted { $0.path != $1.path ? $0.path < $1.path : $0.query < $1.query }
    }

    // MARK: Events

    /// The WebSocket is open: sends the hello with `host` (the host the client connected to, or
    /// the configured public host) and the server time.
    public mutating func connected(host: String, now: Timestamp) -> [SessionAction] {
        guard phase == .idle else { return [] }
        phase = .open
        lastActivity = now
        var actions: [SessionAction] = []
        send(.hello(timestamp: now, host: host, sessionID: sessionID), into: &actions)
        return actions
    }

    /// One text frame from the client.
    public mutating func received(frame: [UInt8], now: Timestamp) -> [SessionAction] {
        guard phase != .closed else { return [] }
        lastActivity = now
        let output: FrameAssembler.Output
        do {
            output = try assembler.append(frame)
        } catch {
            return close(code: .messageTooBig, reason: (error as? ProtocolError)?.message ?? "Message too large.")
        }
        guard case .message(let bytes) = output else { return [] }
        let message: ClientMessage
        do {
            message = try ClientMessage.parse(bytes)
        } catch {
            // Checked only once the message failed to parse: the parser reads every string and
            // allows no other non-ASCII byte, so valid messages are valid UTF-8.
            if String(validating: bytes, as: UTF8.self) == nil {
                return close(code: .invalidPayload, reason: "Invalid UTF-8 in a text message.")
            }
            return close(code: .protocolError, reason: (error as? ProtocolError)?.message ?? "Malformed message.")
        }
        switch message {
        case .control(.ping):
            var actions: [SessionAction] = []
            send(.pong, into: &actions)
            return actions
        case .control:
            return []
        case .request(let request):
            queue.append(.request(request))
        case .invalidRequest(let id, let error):
            queue.append(.invalid(id, error))
        }
        if pendingRequestCount > configuration.maxPendingRequests {
            return close(
                code: .policyViolation,
                reason: "Too many pending requests: at most \(configuration.maxPendingRequests) may wait for an answer."
            )
        }
        return pump()
    }

    /// One text frame from the client, as a string.
    public mutating func received(frame: String, now: Timestamp) -> [SessionAction] {
        received(frame: Array(frame.utf8), now: now)
    }

    /// Time passes: closes an idle connection (when configured) and revokes an expired
    /// credential (`ac` with `expired_token`; the SDK reconnects with a fresh token).
    public mutating func tick(now: Timestamp) -> [SessionAction] {
        guard phase == .open else { return [] }
        if let limit = configuration.idleTimeoutMilliseconds, let last = lastActivity,
            now.millisecondsSince1970 - last.millisecondsSince1970 >= limit
        {
            return close(code: .policyViolation, reason: "Idle timeout: no frame for \(limit / 1000) seconds.")
        }
        if let expiry = identity.expiresAt, now >= expiry {
            return revokeAuthentication(status: .expiredToken, reason: "Auth token is expired.")
        }
        if let probe = identity.revocation, probe.isRevoked {
            return revokeAuthentication(status: .invalidToken, reason: "Auth token is revoked: sign in again.")
        }
        return []
    }

    /// The socket is gone (closed by the client or the network): run onDisconnect, drop listens.
    public mutating func closed() -> [SessionAction] {
        guard phase != .closed else { return [] }
        return [finish()]
    }

    // MARK: Helpers

    /// Appends the frames of `message`.
    func send(_ message: ServerMessage, into actions: inout [SessionAction]) {
        for frame in message.frames(maxFrameLength: configuration.maxFrameLength) {
            actions.append(.send(frame))
        }
    }

    /// Ends the session: forgets queued work and returns `.connectionClosed`.
    mutating func finish() -> SessionAction {
        let keys = listenKeys
        phase = .closed
        queue = []
        queueHead = 0
        inFlight = nil
        listens = [:]
        assembler.reset()
        return .connectionClosed(listens: keys)
    }

    /// A close reason fits a WebSocket close frame: at most 123 bytes of UTF-8, cut between characters.
    static func closeReason(_ reason: String) -> String {
        if reason.utf8.count <= 123 { return reason }
        var out = ""
        var bytes = 0
        for character in reason {
            let size = character.utf8.count
            if bytes + size > 120 { break }
            out.append(character)
            bytes += size
        }
        return out + "..."
    }
}
