import HearthCore
import HearthProtocol
import Testing

@testable import HearthServer

/// The WebSocket connection's state machine, event by event, without sockets: ordering,
/// backpressure, batching and flushes, timers, closing.
struct RealtimeConnectionTests {
    struct Registration: RealtimeListenHandle {
        let id: UInt64
    }

    typealias Connection = RealtimeConnection<Registration>

    static let start: Int64 = 1_000_000

    static func at(seconds: Int64) -> Timestamp {
        Timestamp(millisecondsSince1970: start + seconds * 1000)
    }

    /// A connection that has sent its hello (and flushed it).
    static func connection(
        maxUnhandledFrames: Int = 3,
        livenessTimeout: Duration? = .seconds(60),
        authOrListenTimeout: Duration? = .seconds(60)
    ) -> Connection {
        var connection = Connection(
            session: RealtimeSession(sessionID: "S1"),
            limits: RealtimeConnectionLimits(
                maxUnhandledFrames: maxUnhandledFrames,
                maxQueuedBytes: 1000,
                livenessTimeout: livenessTimeout,
                authOrListenTimeout: authOrListenTimeout
            )
        )
        connection.start(host: "localhost", now: at(seconds: 0))
        let hello = actions(&connection)
        precondition(hello.count == 2 && hello[0].hasPrefix("send {\"t\":\"c\"") && hello[1] == "flush")
        return connection
    }

    /// Every action until the connection waits, in a short text form.
    static func actions(_ connection: inout Connection) -> [String] {
        var out: [String] = []
        while let action = connection.nextAction() {
            out.append(describe(action))
            precondition(out.count < 1000, "the connection never waits")
        }
        return out
    }

    static func describe(_ action: Connection.Action) -> String {
        switch action {
        case .sendText(let frame): "send " + String(decoding: frame, as: UTF8.self)
        case .sendShared(_, let joining): joining ? "shared joined" : "shared"
        case .sendPing: "ping"
        case .sendPong(let payload): "pong \(payload)"
        case .sendClose(let code, let reason): "close \(code.rawValue) \(reason)"
        case .echoClose(let code): "echo close \(code.map(String.init) ?? "none")"
        case .dropConnection: "drop"
        case .flush: "flush"
        case .read: "read"
        case .reportSlowConsumer: "slow consumer"
        case .listen(let request, let id, _, let replacing):
            "listen r\(id) \(request.path)" + (replacing.map { " replacing \($0.id)" } ?? "")
        case .write(_, let id, _): "write r\(id)"
        case .get(_, let id, _): "get r\(id)"
        case .registerOnDisconnect(_, let id, _): "onDisconnect r\(id)"
        case .cancelOnDisconnect(_, let id, _): "cancel onDisconnect r\(id)"
        case .authenticate(_, let id): "auth r\(id)"
        case .identityChanged(let identity): "identity \(identity.role)"
        case .recheckListens(let listens, _): "recheck \(listens.map { $0.1.id })"
        case .unregister(let registration): "unregister \(registration.id)"
        case .finish(let registrations): "finish \(registrations.map(\.id).sorted())"
        }
    }

    static func put(_ id: Int, _ path: String = "a") -> [UInt8] {
        Array(#"{"t":"d","d":{"r":\#(id),"a":"p","b":{"p":"/\#(path)","d":\#(id)}}}"#.utf8)
    }

    static func request(_ id: Int, _ action: String, _ body: String) -> [UInt8] {
        Array(#"{"t":"d","d":{"r":\#(id),"a":"\#(action)","b":\#(body)}}"#.utf8)
    }

    static func ok(_ id: Int, _ data: String = "\"\"") -> String {
        #"send {"t":"d","d":{"r":\#(id),"b":{"s":"ok","d":\#(data)}}}"#
    }

    static func update(_ path: String, _ value: String) -> EncodedUpdate {
        let node = try! TreeParser.parse(value, at: try! DataPath.parse(path)).node
        return EncodedUpdate(path: try! DataPath.parse(path), change: .set(node))
    }

    /// A connection holding an untagged listen on `/a` with engine registration 7.
    static func listening(_ connection: Connection = connection()) -> (Connection, ListenKey) {
        var connection = connection
        connection.received(request(1, "q", #"{"p":"/a","h":""}"#), now: at(seconds: 1))
        #expect(actions(&connection) == ["listen r1 /a"])
        let key = connection.currentSession.listenKeys[0]
        connection.listenCompleted(
            .listeningUnchanged(warnings: []),
            for: RequestID(1),
            key: key,
            registration: Registration(id: 7)
        )
        #expect(actions(&connection) == [ok(1, "{}"), "flush"])
        return (connection, key)
    }

    // MARK: Ordering

    @Test func responsesLeaveInRequestOrderWhileOneActionIsInFlight() {
        var connection = Self.connection()
        connection.received(Self.put(1), now: Self.at(seconds: 1))
        #expect(Self.actions(&connection) == ["write r1"])
        connection.received(Self.put(2), now: Self.at(seconds: 1))
        connection.received(Self.request(3, "s", #"{"c":{}}"#), now: Self.at(seconds: 1))
        #expect(Self.actions(&connection) == [], "later requests wait for the write in flight")
        connection.completed(.ok, for: RequestID(1))
        #expect(Self.actions(&connection) == [Self.ok(1), "write r2", "flush"])
        connection.completed(.ok, for: RequestID(2))
        #expect(Self.actions(&connection) == [Self.ok(2), Self.ok(3), "flush"])
    }

    @Test func anOutcomeForAnotherRequestIsIgnored() {
        var connection = Self.connection()
        connection.received(Self.put(1), now: Self.at(seconds: 1))
        #expect(Self.actions(&connection) == ["write r1"])
        connection.completed(.ok, for: RequestID(9))
        connection.received(Self.put(2), now: Self.at(seconds: 1))
        #expect(Self.actions(&connection) == [], "r1 is still in flight")
    }

    @Test func anAuthenticationIsAnsweredBeforeTheRequestsBehindIt() {
        var connection = Self.connection()
        connection.received(Self.request(1, "auth", #"{"cred":"secret"}"#), now: Self.at(seconds: 1))
        connection.received(Self.put(2), now: Self.at(seconds: 1))
        // The handler verifies the credential while performing the action, then answers it.
        let first = connection.nextAction().map(Self.describe)
        #expect(first == "auth r1")
        connection.completed(.authenticated(AuthIdentity(role: .admin)), for: RequestID(1))
        // The identity goes to presence too (an urgent action: it waits for nothing).
        #expect(Self.actions(&connection) == [Self.ok(1, #"{"auth":null}"#), "write r2", "identity admin", "flush"])
        #expect(connection.currentSession.identity.role == .admin)
    }

    /// Presence follows the session's identity: a user's `auth`, then `unauth`.
    @Test func everyIdentityChangeIsReportedForPresence() {
        var connection = Self.connection()
        connection.received(Self.request(1, "auth", #"{"cred":"token"}"#), now: Self.at(seconds: 1))
        #expect(connection.nextAction().map(Self.describe) == "auth r1")
        connection.completed(.authenticated(.user(authVariable: .object([("uid", .string("ada"))]))), for: RequestID(1))
        #expect(Self.actions(&connection) == [Self.ok(1, #"{"auth":{"uid":"ada"}}"#), "flush", "identity user"])
        connection.received(Self.request(2, "unauth", "{}"), now: Self.at(seconds: 2))
        #expect(Self.actions(&connection) == [Self.ok(2), "flush", "identity anonymous"])
    }

    @Test func aListensDataLeavesBeforeDeliveriesThatRacedIt() {
        var connection = Self.connection()
        connection.received(Self.request(1, "q", #"{"p":"/a","h":""}"#), now: Self.at(seconds: 1))
        #expect(Self.actions(&connection) == ["listen r1 /a"])
        let key = connection.currentSession.listenKeys[0]
        connection.deliver(Self.update("/a", "2"), id: 7, key: key)
        #expect(Self.actions(&connection) == [], "the push waits for the listen's answer")
        let data = try! TreeParser.parse("1", at: try! DataPath.parse("/a")).node
        connection.listenCompleted(
            .listening(data: data, warnings: []),
            for: RequestID(1),
            key: key,
            registration: Registration(id: 7)
        )
        #expect(
            Self.actions(&connection) == [
                #"send {"t":"d","d":{"a":"d","b":{"p":"a","d":1}}}"#, Self.ok(1, "{}"), "shared", "flush",
            ]
        )
    }

    /// A write's answer that comes behind the pushes of its commit (`answered`) leaves after
    /// them, and after every push that arrived while it was in flight; a request that arrived
    /// meanwhile is handled after it.
    @Test func anAnswerBehindItsCommitsPushesLeavesAfterThem() {
        var (connection, key) = Self.listening()
        connection.received(Self.put(2), now: Self.at(seconds: 2))
        #expect(Self.actions(&connection) == ["write r2"])
        connection.beginDeliveries()
        connection.deliver(Self.update("/a", "2"), id: 7, key: key)
        connection.received(Self.request(3, "s", #"{"c":{}}"#), now: Self.at(seconds: 2))
        connection.deliver(Self.update("/a", "3"), id: 7, key: key)
        #expect(Self.actions(&connection) == [], "all wait for the write's answer")
        connection.answered(.ok, for: RequestID(2))
        connection.endDeliveries()
        #expect(Self.actions(&connection) == ["shared joined", "shared joined", Self.ok(2), Self.ok(3), "flush"])
    }

    /// `completed` (a write of a connection that holds no listen, or any other action) answers
    /// first, as before: pushes queued meanwhile follow.
    @Test func aCompletedActionAnswersBeforeThePushesQueuedMeanwhile() {
        var (connection, key) = Self.listening()
        connection.received(Self.put(2), now: Self.at(seconds: 2))
        #expect(Self.actions(&connection) == ["write r2"])
        connection.deliver(Self.update("/a", "2"), id: 7, key: key)
        connection.completed(.ok, for: RequestID(2))
        #expect(Self.actions(&connection) == [Self.ok(2), "shared", "flush"])
    }

    // MARK: Backpressure

    @Test func readingIsHeldWhileTooManyMessagesWaitAndReleasedOnceHandled() {
        var connection = Self.connection(maxUnhandledFrames: 2)
        connection.received(Self.put(1), now: Self.at(seconds: 1))
        #expect(Self.actions(&connection) == ["write r1"])
        let mayRead1 = connection.readRequested()
        #expect(mayRead1)
        connection.received(Self.put(2), now: Self.at(seconds: 1))
        connection.received(Self.put(3), now: Self.at(seconds: 1))
        let mayRead2 = connection.readRequested()
        #expect(!mayRead2, "two messages wait: reading pauses")
        #expect(Self.actions(&connection) == [], "still held while the write is in flight")
        connection.completed(.ok, for: RequestID(1))
        #expect(Self.actions(&connection) == [Self.ok(1), "write r2", "flush", "read"])
        let mayRead3 = connection.readRequested()
        #expect(mayRead3)
    }

    @Test func aReadHeldForFanoutGoesOnOnceFanoutCaughtUp() {
        var connection = Self.connection()
        let reads1 = connection.fanoutCaughtUp()
        #expect(!reads1, "nothing held")
        connection.holdReading()
        let reads2 = connection.fanoutCaughtUp()
        #expect(reads2)
        let reads3 = connection.fanoutCaughtUp()
        #expect(!reads3, "released once")
    }

    @Test func anUnwritableChannelClosesTheConnectionAsASlowConsumer() {
        var connection = Self.connection()
        connection.received(Self.put(1), now: Self.at(seconds: 1))
        #expect(Self.actions(&connection) == ["write r1"])
        connection.writabilityChanged(false)
        connection.completed(.ok, for: RequestID(1))
        #expect(
            Self.actions(&connection) == [
                "slow consumer", "close 1008 Slow consumer: more than 1000 bytes waited to be sent.", "finish []",
                "flush",
            ]
        )
        connection.writabilityChanged(true)
        connection.received(Self.put(2), now: Self.at(seconds: 2))
        #expect(Self.actions(&connection) == [], "nothing more after the close")
    }

    @Test func aChannelWritableAgainBeforeTheNextBatchSendsIt() {
        var connection = Self.connection()
        connection.received(Self.put(1), now: Self.at(seconds: 1))
        #expect(Self.actions(&connection) == ["write r1"])
        connection.writabilityChanged(false)
        connection.writabilityChanged(true)
        connection.completed(.ok, for: RequestID(1))
        #expect(Self.actions(&connection) == [Self.ok(1), "flush"])
    }

    @Test func aSharedPushToAnUnwritableChannelClosesIt() {
        var (connection, key) = Self.listening()
        connection.writabilityChanged(false)
        connection.deliver(Self.update("/a", "1"), id: 7, key: key)
        #expect(
            Self.actions(&connection) == [
                "slow consumer", "close 1008 Slow consumer: more than 1000 bytes waited to be sent.", "finish [7]",
                "flush",
            ]
        )
    }

    // MARK: Batching and flushes

    @Test func aBatchOfDeliveriesIsJoinedAndFlushedOnce() {
        var (connection, key) = Self.listening()
        connection.beginDeliveries()
        for value in 1...3 {
            connection.deliver(Self.update("/a", "\(value)"), id: 7, key: key)
            #expect(Self.actions(&connection) == ["shared joined"])
        }
        connection.endDeliveries()
        #expect(Self.actions(&connection) == ["flush"])
        #expect(Self.actions(&connection) == [], "one flush per batch")
    }

    @Test func aDeliveryOutsideABatchIsFlushedAtOnce() {
        var (connection, key) = Self.listening()
        connection.deliver(Self.update("/a", "1"), id: 7, key: key)
        #expect(Self.actions(&connection) == ["shared", "flush"])
    }

    /// The handler's fast path (`takesSharedPush`) takes a push only where `deliver` would send
    /// the shared frame at once: the listen's shared registration, nothing waiting, a writable
    /// channel. Anywhere else it changes nothing and `deliver` decides.
    @Test func aSharedPushIsTakenDirectlyOnlyWhenNothingWaits() {
        var (connection, key) = Self.listening()
        let update = Self.update("/a", "1")
        func take(_ connection: inout Connection, _ id: UInt64) -> Bool {
            connection.takesSharedPush(update, id: id)
        }
        #expect(!take(&connection, 7), "not known as shared before a first push")
        connection.deliver(update, id: 7, key: key)
        #expect(Self.actions(&connection) == ["shared", "flush"])
        #expect(take(&connection, 7))
        #expect(Self.actions(&connection) == ["flush"], "outside a batch: flushed at once")
        connection.beginDeliveries()
        #expect(take(&connection, 7))
        #expect(take(&connection, 7))
        #expect(Self.actions(&connection) == [], "no flush inside a batch")
        connection.endDeliveries()
        #expect(Self.actions(&connection) == ["flush"])
        #expect(!take(&connection, 8), "another registration")
        #expect(Self.actions(&connection) == [])
        // A write in flight: pushes wait behind it, so none is taken.
        connection.received(Self.put(2), now: Self.at(seconds: 2))
        #expect(Self.actions(&connection) == ["write r2"])
        #expect(!take(&connection, 7))
        #expect(Self.actions(&connection) == [])
        connection.completed(.ok, for: RequestID(2))
        #expect(Self.actions(&connection) == [Self.ok(2), "flush"])
        // An unwritable channel: `deliver` closes the slow consumer.
        connection.writabilityChanged(false)
        #expect(!take(&connection, 7))
        #expect(Self.actions(&connection) == [])
    }

    @Test func deliveriesForARegistrationNoLongerHeldAreDropped() {
        var (connection, key) = Self.listening()
        connection.deliver(Self.update("/a", "1"), id: 8, key: key)
        #expect(Self.actions(&connection) == [])
        connection.received(Self.request(2, "n", #"{"p":"/a"}"#), now: Self.at(seconds: 2))
        #expect(Self.actions(&connection) == ["unregister 7", Self.ok(2), "flush"])
        connection.deliver(Self.update("/a", "1"), id: 7, key: key)
        #expect(Self.actions(&connection) == [])
    }

    @Test func eventsQueuedBehindAnActionLeaveWithOneFlush() {
        var (connection, key) = Self.listening()
        connection.received(Self.put(2), now: Self.at(seconds: 2))
        #expect(Self.actions(&connection) == ["write r2"])
        connection.deliver(Self.update("/a", "2"), id: 7, key: key)
        connection.received(Self.request(3, "s", #"{"c":{}}"#), now: Self.at(seconds: 2))
        connection.completed(.ok, for: RequestID(2))
        #expect(Self.actions(&connection) == [Self.ok(2), "shared", Self.ok(3), "flush"])
    }

    @Test func aRevocationDropsTheListen() {
        var (connection, key) = Self.listening()
        connection.revoked(id: 7, key: key)
        #expect(Self.actions(&connection) == [#"send {"t":"d","d":{"a":"c","b":{"p":"a"}}}"#, "flush"])
        #expect(connection.heldRegistrations.isEmpty)
        #expect(connection.currentSession.listenCount == 0)
    }

    @Test func aNewIdentityRechecksTheListensAndRevokesTheUnreadable() {
        var (connection, key) = Self.listening()
        connection.received(Self.request(2, "auth", #"{"cred":"secret"}"#), now: Self.at(seconds: 2))
        connection.received(Self.put(3), now: Self.at(seconds: 2))
        let first = connection.nextAction().map(Self.describe)
        #expect(first == "auth r2")
        connection.completed(.authenticated(AuthIdentity(role: .admin)), for: RequestID(2))
        #expect(Self.actions(&connection) == [Self.ok(2, #"{"auth":null}"#), "recheck [7]", "identity admin", "flush"])
        connection.listensRechecked(unreadable: [key])
        #expect(
            Self.actions(&connection) == [
                "unregister 7", #"send {"t":"d","d":{"a":"c","b":{"p":"a"}}}"#, "write r3", "flush",
            ]
        )
    }

    // MARK: Timers

    @Test func anAnonymousSilentConnectionIsClosedAfterTheAuthTimeout() {
        var connection = Self.connection(livenessTimeout: nil)
        connection.tick(now: Self.at(seconds: 59)) { false }
        #expect(Self.actions(&connection) == [])
        connection.tick(now: Self.at(seconds: 60)) { false }
        #expect(
            Self.actions(&connection) == [
                "close 1008 No auth, listen or request within 60 seconds.", "finish []", "flush",
            ]
        )
    }

    @Test func keepAlivesDoNotCountAsRequests() {
        var connection = Self.connection(livenessTimeout: nil)
        connection.received(Array("0".utf8), now: Self.at(seconds: 30))
        #expect(Self.actions(&connection) == [])
        connection.tick(now: Self.at(seconds: 60)) { false }
        #expect(Self.actions(&connection).first == "close 1008 No auth, listen or request within 60 seconds.")
    }

    @Test func aRequestMovesTheAuthDeadlineOn() {
        var connection = Self.connection(livenessTimeout: nil)
        connection.received(Self.request(1, "s", #"{"c":{}}"#), now: Self.at(seconds: 30))
        #expect(Self.actions(&connection) == [Self.ok(1), "flush"])
        connection.tick(now: Self.at(seconds: 60)) { false }
        connection.tick(now: Self.at(seconds: 119)) { false }
        #expect(Self.actions(&connection) == [], "the deadline moved to 120 s")
        connection.tick(now: Self.at(seconds: 120)) { false }
        #expect(Self.actions(&connection).first == "close 1008 No auth, listen or request within 60 seconds.")
    }

    @Test(arguments: ["authenticated", "listening", "onDisconnect", "busy", "no timeout"])
    func aConnectionIsNotClosedForTheAuthTimeout(_ why: String) {
        var connection = Self.connection(
            livenessTimeout: nil,
            authOrListenTimeout: why == "no timeout" ? nil : .seconds(60)
        )
        switch why {
        case "authenticated":
            connection.received(Self.request(1, "auth", #"{"cred":"secret"}"#), now: Self.at(seconds: 1))
            let first = connection.nextAction().map(Self.describe)
            #expect(first == "auth r1")
            connection.completed(.authenticated(AuthIdentity(role: .admin)), for: RequestID(1))
        case "listening":
            (connection, _) = Self.listening(connection)
        case "busy":
            connection.received(Self.put(1), now: Self.at(seconds: 1))
        default:
            break
        }
        _ = Self.actions(&connection)
        // The tick after the request only moves the deadline on; the next one would close.
        connection.tick(now: Self.at(seconds: 60)) { why == "onDisconnect" }
        connection.tick(now: Self.at(seconds: 200)) { why == "onDisconnect" }
        #expect(Self.actions(&connection) == [])
        #expect(connection.currentSession.phase == .open)
    }

    @Test func aSilentPeerIsPingedThenDropped() {
        var connection = Self.connection(authOrListenTimeout: nil)
        connection.tick(now: Self.at(seconds: 30)) { false }
        #expect(Self.actions(&connection) == ["ping", "flush"])
        connection.tick(now: Self.at(seconds: 60)) { false }
        #expect(Self.actions(&connection) == [], "the first tick past the timeout only notes it")
        connection.tick(now: Self.at(seconds: 65)) { false }
        #expect(Self.actions(&connection) == ["drop"])
    }

    @Test func aPeerThatSpeaksIsNotPinged() {
        var connection = Self.connection(authOrListenTimeout: nil)
        connection.frameArrived()
        connection.tick(now: Self.at(seconds: 30)) { false }
        #expect(Self.actions(&connection) == [])
        connection.tick(now: Self.at(seconds: 60)) { false }
        #expect(Self.actions(&connection) == ["ping", "flush"])
        connection.frameArrived()
        connection.tick(now: Self.at(seconds: 90)) { false }
        #expect(Self.actions(&connection) == [], "the pong reset it")
    }

    /// The SDKs send a keep-alive every 45 s: with the default 90 s timeout, and ticks every
    /// 5 s, such a client is never pinged or dropped, however long it stays.
    @Test func aClientSendingTheSDKsKeepAlivesIsNeverDropped() {
        var connection = Self.connection(livenessTimeout: .seconds(90), authOrListenTimeout: nil)
        for second in stride(from: Int64(5), through: 3600, by: 5) {
            if second % 45 == 0 {
                connection.frameArrived()
                connection.received(Array("0".utf8), now: Self.at(seconds: second))
            }
            connection.tick(now: Self.at(seconds: second)) { false }
            #expect(Self.actions(&connection) == [], "at \(second) s")
        }
        #expect(connection.currentSession.phase == .open)
    }

    /// Silent for the whole timeout: dropped at the next tick that still finds it so, not
    /// earlier; pinged halfway.
    @Test func aPeerSilentForTheLivenessTimeoutIsDropped() {
        var connection = Self.connection(livenessTimeout: .seconds(90), authOrListenTimeout: nil)
        connection.tick(now: Self.at(seconds: 40)) { false }
        #expect(Self.actions(&connection) == [])
        connection.tick(now: Self.at(seconds: 45)) { false }
        #expect(Self.actions(&connection) == ["ping", "flush"])
        connection.tick(now: Self.at(seconds: 89)) { false }
        #expect(Self.actions(&connection) == [], "one ping per silence")
        connection.tick(now: Self.at(seconds: 90)) { false }
        #expect(Self.actions(&connection) == [])
        connection.tick(now: Self.at(seconds: 95)) { false }
        #expect(Self.actions(&connection) == ["drop"])
    }

    /// A loop kept busy past a tick runs it before reading what waited in the socket: the
    /// first tick past the timeout does not drop a client whose frame is read just after it.
    @Test func aFrameReadJustAfterALateTickKeepsTheConnection() {
        var connection = Self.connection(livenessTimeout: .seconds(90), authOrListenTimeout: nil)
        connection.frameArrived()
        connection.tick(now: Self.at(seconds: 5)) { false }
        connection.tick(now: Self.at(seconds: 100)) { false }  // late: the loop was busy
        _ = Self.actions(&connection)
        connection.frameArrived()  // what waited in the socket, read after the tick
        connection.tick(now: Self.at(seconds: 105)) { false }
        #expect(Self.actions(&connection) == [])
        connection.tick(now: Self.at(seconds: 190)) { false }
        #expect(Self.actions(&connection) == ["ping", "flush"], "silent again since 105 s: pinged, not dropped")
    }

    /// A connection whose reading is held has frames waiting in its socket: it is not silent.
    @Test func aConnectionWhoseReadingIsHeldIsNotSilent() {
        var connection = Self.connection(livenessTimeout: .seconds(90), authOrListenTimeout: nil)
        connection.holdReading()
        connection.tick(now: Self.at(seconds: 200)) { false }
        #expect(Self.actions(&connection) == ["read"], "not dropped; the tick resumes reading")
        connection.tick(now: Self.at(seconds: 289)) { false }
        #expect(Self.actions(&connection) == ["ping", "flush"])
        connection.tick(now: Self.at(seconds: 290)) { false }
        connection.tick(now: Self.at(seconds: 295)) { false }
        #expect(Self.actions(&connection) == ["drop"])
    }

    @Test func aPingIsAnsweredEvenWhileAnActionIsInFlight() {
        var connection = Self.connection()
        connection.received(Self.put(1), now: Self.at(seconds: 1))
        #expect(Self.actions(&connection) == ["write r1"])
        connection.pingReceived([1, 2])
        #expect(Self.actions(&connection) == ["pong [1, 2]", "flush"])
    }

    // MARK: Closing

    @Test func theClientsCloseIsEchoedAndEndsTheSessionOnce() {
        var (connection, _) = Self.listening()
        connection.closeReceived(code: 1000)
        #expect(Self.actions(&connection) == ["echo close 1000", "finish [7]"])
        connection.ended()
        connection.pingReceived([])
        connection.received(Self.put(2), now: Self.at(seconds: 2))
        #expect(Self.actions(&connection) == [], "nothing after the close")
    }

    @Test func aCloseAnsweringOursDropsTheConnection() {
        var connection = Self.connection()
        connection.drain()
        #expect(Self.actions(&connection) == ["close 1001 The server is shutting down.", "finish []", "flush"])
        connection.closeReceived(code: 1001)
        #expect(Self.actions(&connection) == ["drop"])
    }

    @Test func theSocketEndingWhileBusyWaitsForTheOutcome() {
        var connection = Self.connection()
        connection.received(Self.put(1), now: Self.at(seconds: 1))
        #expect(Self.actions(&connection) == ["write r1"])
        connection.ended()
        #expect(Self.actions(&connection) == [])
        connection.completed(.ok, for: RequestID(1))
        #expect(Self.actions(&connection) == [Self.ok(1), "finish []", "flush"])
    }

    @Test func aListenAnsweredAfterTheEndIsUnregistered() {
        var connection = Self.connection()
        connection.received(Self.request(1, "q", #"{"p":"/a","h":""}"#), now: Self.at(seconds: 1))
        #expect(Self.actions(&connection) == ["listen r1 /a"])
        let key = connection.currentSession.listenKeys[0]
        connection.failed(.protocolError, "Invalid WebSocket framing.")
        connection.listenCompleted(
            .listeningUnchanged(warnings: []),
            for: RequestID(1),
            key: key,
            registration: Registration(id: 7)
        )
        #expect(
            Self.actions(&connection) == [
                Self.ok(1, "{}"), "close 1002 Invalid WebSocket framing.", "finish [7]", "flush",
            ],
            "answered, then closed: the registration is dropped with the others"
        )

        var late = Self.connection()
        late.received(Self.request(1, "q", #"{"p":"/a","h":""}"#), now: Self.at(seconds: 1))
        _ = Self.actions(&late)
        late.ended()
        late.listenCompleted(.listeningUnchanged(warnings: []), for: RequestID(1), key: key, registration: nil)
        #expect(Self.actions(&late) == [Self.ok(1, "{}"), "finish []", "flush"])
        late.listenCompleted(
            .listeningUnchanged(warnings: []),
            for: RequestID(1),
            key: key,
            registration: Registration(id: 9)
        )
        #expect(Self.actions(&late) == ["unregister 9"], "a registration made after the end is dropped")
    }
}
