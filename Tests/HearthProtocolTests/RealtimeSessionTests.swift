import HearthCore
import Testing

@testable import HearthProtocol

struct RealtimeSessionTests {
    @Test func helloIsTheFirstFrame() {
        var session = RealtimeSession(sessionID: "sess-1")
        let actions = session.connected(host: "127.0.0.1:9000", now: at(1_234))
        #expect(
            sent(actions) == [#"{"t":"c","d":{"t":"h","d":{"ts":1234,"v":"5","h":"127.0.0.1:9000","s":"sess-1"}}}"#]
        )
        #expect(session.phase == .open)
        #expect(session.connected(host: "x", now: at(1)).isEmpty)
    }

    @Test func pingIsAnsweredAndKeepAliveIgnored() {
        var session = openSession()
        #expect(
            sent(session.received(frame: #"{"t":"c","d":{"t":"p","d":{}}}"#, now: at(2))) == [
                #"{"t":"c","d":{"t":"o","d":{}}}"#
            ]
        )
        #expect(session.received(frame: "0", now: at(3)).isEmpty)
    }

    @Test func putIsPerformedThenAnswered() {
        var session = openSession()
        let actions = session.received(frame: frame(1, "p", #"{"p":"/a","d":1}"#), now: at(2))
        #expect(
            actions == [
                .write(
                    .set(PutRequest(path: path("/a"), value: NewValue(node: tree("1")))),
                    requestID: RequestID(1),
                    identity: .anonymous
                )
            ]
        )
        #expect(sent(session.completed(.ok, for: RequestID(1))) == [response(1, "ok", #""""#)])
    }

    @Test func requestsWaitForThePreviousOutcome() {
        var session = openSession()
        let first = session.received(frame: frame(1, "p", #"{"p":"/a","d":1}"#), now: at(2))
        #expect(work(first).count == 1)
        // Later requests, even ones answered without database work, queue behind the write.
        #expect(session.received(frame: frame(2, "s", #"{"c":{}}"#), now: at(3)).isEmpty)
        #expect(session.received(frame: frame(3, "m", #"{"p":"/b","d":{"x":2}}"#), now: at(4)).isEmpty)
        #expect(session.received(frame: frame(4, "zz", "{}"), now: at(5)).isEmpty)
        #expect(session.pendingRequestCount == 4)
        // An outcome for a request not in flight is ignored.
        #expect(session.completed(.ok, for: RequestID(3)).isEmpty)
        let next = session.completed(.ok, for: RequestID(1))
        #expect(sent(next) == [response(1, "ok", #""""#), response(2, "ok", #""""#)])
        #expect(
            work(next) == [
                .stats(.object([])),
                .write(
                    .merge(
                        MergeRequest(
                            path: path("/b"),
                            entries: [MergeEntry(path: path("x"), value: NewValue(node: tree("2")))]
                        )
                    ),
                    requestID: RequestID(3),
                    identity: .anonymous
                ),
            ]
        )
        let last = session.completed(.failed(.permissionDenied, message: "Permission denied"), for: RequestID(3))
        #expect(
            sent(last) == [
                response(3, "permission_denied", #""Permission denied""#),
                response(
                    4,
                    "failure",
                    #""Unknown action 'zz'; accepted are q, n, p, m, o, om, oc, auth, gauth, unauth, s and g.""#
                ),
            ]
        )
        #expect(session.pendingRequestCount == 0)
    }

    @Test func listenPushesDataBeforeOk() {
        var session = openSession()
        let listen = ListenRequest(path: path("/m"), query: Query(limit: .last(2)), tag: 5, hash: "")
        let actions = session.received(
            frame: frame(1, "q", #"{"p":"/m","q":{"l":2,"vf":"r"},"t":5,"h":""}"#),
            now: at(2)
        )
        #expect(actions == [.listen(listen, requestID: RequestID(1), identity: .anonymous)])
        #expect(session.listenCount == 1)
        let done = session.completed(.listening(data: tree(#"{"k":{".value":1,".priority":3}}"#)), for: RequestID(1))
        #expect(
            sent(done) == [
                #"{"t":"d","d":{"a":"d","b":{"p":"m","d":{"k":{".value":1,".priority":3}},"t":5}}}"#,
                response(1, "ok", "{}"),
            ]
        )
        // Later pushes carry the tag; pushes for unknown listens are dropped.
        #expect(
            sent(session.push(.set(tree("2")), at: path("/m/k"), for: listen.key))
                == [#"{"t":"d","d":{"a":"d","b":{"p":"m/k","d":2,"t":5}}}"#]
        )
        #expect(session.push(.set(nil), at: path("/z"), for: ListenKey(path: path("/z"), query: Query())).isEmpty)
    }

    @Test func listenWarningsAndUnchangedData() {
        var session = openSession()
        _ = session.received(
            frame: frame(1, "q", #"{"p":"/a","q":{"sp":1,"sin":true,"i":"x"},"t":1,"h":"H"}"#),
            now: at(2)
        )
        #expect(
            sent(session.completed(.listening(data: nil, warnings: ["no_index"]), for: RequestID(1))) == [
                #"{"t":"d","d":{"a":"d","b":{"p":"a","d":null,"t":1}}}"#, response(1, "ok", #"{"w":["no_index"]}"#),
            ]
        )
        _ = session.received(frame: frame(2, "q", #"{"p":"/b","h":"H"}"#), now: at(3))
        #expect(sent(session.completed(.listeningUnchanged(), for: RequestID(2))) == [response(2, "ok", "{}")])
    }

    @Test func failedListenIsForgotten() {
        var session = openSession()
        _ = session.received(frame: frame(1, "q", #"{"p":"/secret","h":""}"#), now: at(2))
        #expect(
            sent(session.completed(.permissionDenied, for: RequestID(1))) == [
                response(1, "permission_denied", #""Permission denied""#)
            ]
        )
        #expect(session.listenCount == 0)
    }

    @Test func unlistenRemovesTheListenOnce() {
        var session = openSession()
        _ = session.received(frame: frame(1, "q", #"{"p":"/a","q":{"l":1,"vf":"l"},"t":9,"h":""}"#), now: at(2))
        _ = session.completed(.listening(data: nil), for: RequestID(1))
        // The unlisten names the same query with the members in another order.
        let actions = session.received(frame: frame(2, "n", #"{"p":"/a","q":{"vf":"l","l":1},"t":9}"#), now: at(3))
        #expect(work(actions) == [.unlisten(ListenKey(path: path("/a"), query: Query(limit: .first(1))))])
        #expect(sent(actions) == [response(2, "ok", #""""#)])
        // A second unlisten is answered but does nothing.
        let again = session.received(frame: frame(3, "n", #"{"p":"/a","q":{"vf":"l","l":1},"t":9}"#), now: at(4))
        #expect(work(again).isEmpty)
        #expect(sent(again) == [response(3, "ok", #""""#)])
    }

    @Test func duplicateListenReplacesTheFirst() {
        var session = openSession()
        _ = session.received(frame: frame(1, "q", #"{"p":"/a","q":{"l":1,"vf":"l"},"t":1,"h":""}"#), now: at(2))
        _ = session.completed(.listening(data: nil), for: RequestID(1))
        let actions = session.received(
            frame: frame(2, "q", #"{"p":"/a","q":{"l":1,"vf":"l"},"t":2,"h":""}"#),
            now: at(3)
        )
        #expect(work(actions).count == 1)
        _ = session.completed(.listening(data: tree("1")), for: RequestID(2))
        #expect(session.listenCount == 1)
        #expect(session.listen(for: ListenKey(path: path("/a"), query: Query(limit: .first(1))))?.tag == 2)
    }

    @Test func listensAreBounded() {
        var session = openSession(RealtimeSessionConfiguration(maxListens: 2))
        for i in 1...2 {
            _ = session.received(frame: frame(i, "q", "{\"p\":\"/l\(i)\",\"h\":\"\"}"), now: at(2))
            _ = session.completed(.listening(data: nil), for: RequestID(Int64(i)))
        }
        let refused = session.received(frame: frame(3, "q", #"{"p":"/l3","h":""}"#), now: at(3))
        #expect(work(refused).isEmpty)
        #expect(
            sent(refused) == [
                response(3, "failure", #""Too many listeners on this connection: at most 2 are allowed.""#)
            ]
        )
        // Re-listening to a held listen is still allowed.
        #expect(work(session.received(frame: frame(4, "q", #"{"p":"/l1","h":""}"#), now: at(4))).count == 1)
    }

    @Test func revokedListenIsReportedAndForgotten() {
        var session = openSession()
        _ = session.received(frame: frame(1, "q", #"{"p":"/m","q":{"l":3,"vf":"r"},"t":4,"h":""}"#), now: at(2))
        _ = session.completed(.listening(data: nil), for: RequestID(1))
        let key = ListenKey(path: path("/m"), query: Query(limit: .last(3)))
        #expect(sent(session.revokeListen(key)) == [#"{"t":"d","d":{"a":"c","b":{"p":"m","q":[{"l":3,"vf":"r"}]}}}"#])
        #expect(session.listenCount == 0)
        #expect(session.revokeListen(key).isEmpty)
    }

    @Test func authenticationSetsTheIdentity() {
        var session = openSession()
        let actions = session.received(frame: frame(1, "auth", #"{"cred":"eyJ.x.y"}"#), now: at(2))
        #expect(
            actions == [
                .authenticate(AuthRequest(credential: "eyJ.x.y", kind: .firebaseToken), requestID: RequestID(1))
            ]
        )
        let user = AuthIdentity.user(
            authVariable: .object([("uid", .string("ada"))]),
            expiresAt: Timestamp(secondsSince1970: 5_000)
        )
        let done = session.completed(.authenticated(user), for: RequestID(1))
        #expect(sent(done) == [response(1, "ok", #"{"auth":{"uid":"ada"},"expires":5000}"#)])
        #expect(work(done) == [.identityChanged(user)])
        #expect(session.identity == user)
        // Later actions carry the identity.
        let get = session.received(frame: frame(2, "g", #"{"p":"/a","q":{}}"#), now: at(3))
        #expect(get == [.get(GetRequest(path: path("/a")), requestID: RequestID(2), identity: user)])
        #expect(
            sent(session.completed(.value(tree(#"{"b":1}"#)), for: RequestID(2))) == [response(2, "ok", #"{"b":1}"#)]
        )
        // unauth answers at once and drops the identity.
        let unauth = session.received(frame: frame(3, "unauth", "{}"), now: at(4))
        #expect(sent(unauth) == [response(3, "ok", #""""#)])
        #expect(work(unauth) == [.identityChanged(.anonymous)])
    }

    @Test func refusedCredentialLeavesTheConnectionAnonymous() {
        var session = openSession()
        _ = session.received(frame: frame(1, "gauth", #"{"cred":"owner"}"#), now: at(2))
        _ = session.completed(.authenticated(.admin()), for: RequestID(1))
        _ = session.received(frame: frame(2, "auth", #"{"cred":"bad"}"#), now: at(3))
        let done = session.completed(.failed(.invalidToken, message: "Invalid token."), for: RequestID(2))
        #expect(sent(done) == [response(2, "invalid_token", #""Invalid token.""#)])
        #expect(work(done) == [.identityChanged(.anonymous)])
    }

    @Test func expiredTokenIsRevokedOnTick() {
        var session = openSession()
        _ = session.received(frame: frame(1, "auth", #"{"cred":"t"}"#), now: at(2))
        _ = session.completed(.authenticated(.user(authVariable: .null, expiresAt: at(10_000))), for: RequestID(1))
        #expect(session.tick(now: at(9_999)).isEmpty)
        let actions = session.tick(now: at(10_000))
        #expect(sent(actions) == [#"{"t":"d","d":{"a":"ac","b":{"s":"expired_token","d":"Auth token is expired."}}}"#])
        #expect(work(actions) == [.identityChanged(.anonymous)])
        #expect(session.tick(now: at(20_000)).isEmpty)
    }

    @Test func onDisconnectActions() {
        var session = openSession()
        let put = session.received(frame: frame(1, "o", #"{"p":"/p","d":"gone"}"#), now: at(2))
        #expect(
            put == [
                .registerOnDisconnect(
                    .set(PutRequest(path: path("/p"), value: NewValue(node: tree("\"gone\"")))),
                    requestID: RequestID(1),
                    identity: .anonymous
                )
            ]
        )
        _ = session.completed(.ok, for: RequestID(1))
        let cancel = session.received(frame: frame(2, "oc", #"{"p":"/p","d":null}"#), now: at(3))
        #expect(cancel == [.cancelOnDisconnect(path("/p"), requestID: RequestID(2), identity: .anonymous)])
    }

    @Test func malformedJSONClosesTheConnection() {
        var session = openSession()
        _ = session.received(frame: frame(1, "q", #"{"p":"/a","h":""}"#), now: at(2))
        let actions = session.received(frame: "{\"t\":\"d\",", now: at(3))
        guard case .close(let code, let reason)? = actions.first else {
            Issue.record("expected a close, got \(actions)")
            return
        }
        #expect(code == .protocolError)
        #expect(reason.hasPrefix("Invalid JSON"))
        #expect(actions.last == .connectionClosed(listens: [ListenKey(path: path("/a"), query: Query())]))
        #expect(session.phase == .closed)
        #expect(session.received(frame: "0", now: at(4)).isEmpty)
        #expect(session.completed(.ok, for: RequestID(1)).isEmpty)
        #expect(session.closed().isEmpty)
    }

    @Test func oversizedMessageClosesTheConnection() {
        var session = openSession(RealtimeSessionConfiguration(maxMessageBytes: 100))
        _ = session.received(frame: "2", now: at(2))
        _ = session.received(frame: String(repeating: "x", count: 60), now: at(2))
        let actions = session.received(frame: String(repeating: "x", count: 60), now: at(2))
        #expect(
            actions == [
                .close(code: .messageTooBig, reason: "Message too large: messages can be at most 100 bytes."),
                .connectionClosed(listens: []),
            ]
        )
    }

    @Test func multiFrameRequest() {
        var session = openSession()
        let text = frame(1, "p", "{\"p\":\"/a\",\"d\":\"" + String(repeating: "é", count: 20_000) + "\"}")
        var actions: [SessionAction] = []
        for piece in FrameSplitter.split(Array(text.utf8)) {
            actions += session.received(frame: piece, now: at(2))
        }
        #expect(work(actions).count == 1)
    }

    @Test func tooManyPendingRequestsCloses() {
        var session = openSession(RealtimeSessionConfiguration(maxPendingRequests: 2))
        _ = session.received(frame: frame(1, "p", #"{"p":"/a","d":1}"#), now: at(2))
        _ = session.received(frame: frame(2, "p", #"{"p":"/a","d":1}"#), now: at(2))
        let actions = session.received(frame: frame(3, "p", #"{"p":"/a","d":1}"#), now: at(2))
        #expect(
            actions.first
                == .close(
                    code: .policyViolation,
                    reason: "Too many pending requests: at most 2 may wait for an answer."
                )
        )
    }

    @Test func socketCloseReportsListensOnce() {
        var session = openSession()
        _ = session.received(frame: frame(1, "q", #"{"p":"/b","h":""}"#), now: at(2))
        _ = session.completed(.listening(data: nil), for: RequestID(1))
        _ = session.received(frame: frame(2, "q", #"{"p":"/a","h":""}"#), now: at(2))
        #expect(
            session.closed() == [
                .connectionClosed(listens: [
                    ListenKey(path: path("/a"), query: Query()), ListenKey(path: path("/b"), query: Query()),
                ])
            ]
        )
        #expect(session.closed().isEmpty)
    }

    @Test func idleTimeout() {
        var session = openSession(RealtimeSessionConfiguration(idleTimeoutMilliseconds: 60_000))
        _ = session.received(frame: "0", now: at(50_000))
        #expect(session.tick(now: at(100_000)).isEmpty)
        #expect(
            session.tick(now: at(110_000)).first
                == .close(code: .policyViolation, reason: "Idle timeout: no frame for 60 seconds.")
        )
    }

    @Test func shutdownAndRedirect() {
        var a = openSession()
        let shutdown = a.shutdown(reason: "Database deleted.")
        #expect(sent(shutdown) == [#"{"t":"c","d":{"t":"s","d":"Database deleted."}}"#])
        #expect(work(shutdown) == [.close(code: .normal, reason: "Database deleted."), .connectionClosed(listens: [])])
        var b = openSession()
        #expect(sent(b.redirect(to: "node2:9000")) == [#"{"t":"c","d":{"t":"r","d":"node2:9000"}}"#])
        #expect(b.phase == .closed)
    }

    @Test func closeReasonFitsACloseFrame() {
        var session = openSession()
        let actions = session.close(code: .goingAway, reason: String(repeating: "é", count: 100))
        guard case .close(_, let reason)? = actions.first else {
            Issue.record("expected a close")
            return
        }
        #expect(reason.utf8.count <= 123)
    }
}
