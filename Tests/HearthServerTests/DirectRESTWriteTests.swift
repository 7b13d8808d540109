import Foundation
import HearthTestSupport
import Testing

@testable import HearthServer

/// Plain REST writes answered on their connection's loop (`DirectRESTWrites`, decision 0032)
/// answer exactly as the router does, keep HTTP's order on a connection, and leave everything
/// unusual to the router.
@Suite(.timeLimit(.minutes(2)))
struct DirectRESTWriteTests {
    static let rules = """
        {"rules": {
          "open": {".read": true, ".write": true},
          "mine": {"$uid": {".read": true, ".write": "auth != null && auth.uid == $uid"}},
          "checked": {".read": true, ".write": true, "$x": {".validate": "newData.isNumber()"}},
          "closed": {".read": true, ".write": false}
        }}
        """

    struct Step: Sendable, CustomStringConvertible {
        let method: String
        let target: String
        var headers: [(String, String)] = []
        var body: String = ""
        /// Whether the direct path answers it (the router otherwise).
        var direct: Bool
        var description: String { "\(method) \(target)" }
    }

    static let admin = "auth=\(TestServer.adminSecret)"

    static let steps: [Step] = {
        let u1 = TokenMinter.token(uid: "u1")
        let large = "\"" + String(repeating: "x", count: 70_000) + "\""
        return [
            // The first request opens the namespace (the router's: it may wait for that).
            Step(method: "GET", target: "/open.json", direct: false),
            Step(method: "POST", target: "/open/list.json", body: #"{"a":1}"#, direct: true),
            Step(method: "POST", target: "/open/list.json?print=pretty", body: #"{"b":[1,2]}"#, direct: true),
            Step(method: "PUT", target: "/open/a.json?print=silent", body: "5", direct: true),
            Step(method: "PUT", target: "/open/b.json?print=pretty", body: #"{"x":[1,{"y":"é"}]}"#, direct: true),
            Step(
                method: "PATCH",
                target: "/open/c.json",
                body: #"{"d":1,"e/f":{".sv":{"increment":2}}}"#,
                direct: true
            ),
            Step(
                method: "PATCH",
                target: "/open/c.json",
                body: #"{"d":null,"/e/f/":{".sv":{"increment":3}}}"#,
                direct: true
            ),
            Step(method: "PUT", target: "/mine/u1.json?auth=\(u1)", body: #"{"name":"One"}"#, direct: true),
            Step(
                method: "PUT",
                target: "/mine/u1/age.json",
                headers: [("Authorization", "Bearer \(u1)")],
                body: "30",
                direct: true
            ),
            Step(method: "PUT", target: "/mine/u1.json?\(admin)", body: #"{"name":"Admin"}"#, direct: true),
            // Refused by the rules before the write (a `PUT` or `POST` denied whatever it writes):
            // the router answers; refused in the write (`PATCH` and `DELETE` have no early
            // refusal, `.validate` reads the data): the direct path answers the refusal.
            Step(method: "PUT", target: "/mine/u2.json?auth=\(u1)", body: "1", direct: false),
            Step(method: "PUT", target: "/mine/u1.json", body: "1", direct: false),
            Step(method: "PUT", target: "/closed/x.json", body: "1", direct: false),
            Step(method: "PATCH", target: "/closed.json", body: #"{"x":1}"#, direct: true),
            Step(method: "PUT", target: "/checked/x.json", body: #""text""#, direct: true),
            Step(method: "PUT", target: "/checked/x.json", body: "7", direct: true),
            // Bad input.
            Step(method: "POST", target: "/open/list.json", body: #"{"a":"#, direct: false),
            Step(method: "PUT", target: "/open/bad.json", body: #"{"a.b":1}"#, direct: false),
            Step(method: "PATCH", target: "/open.json", body: "[1]", direct: false),
            Step(method: "PUT", target: "/open/d.json?print=loud", body: "1", direct: false),
            Step(method: "PUT", target: "/open/d.json?auth=not-a-token", body: "1", direct: false),
            Step(
                method: "PUT",
                target: "/open/d.json",
                headers: [("Authorization", "Basic x")],
                body: "1",
                direct: false
            ),
            Step(method: "PUT", target: "/open/d%ZZ.json", body: "1", direct: true),
            Step(
                method: "PUT",
                target: "/mine/u1/age.json",
                headers: [("Authorization", "Bearer \(u1)"), ("Authorization", "Bearer \(u1)")],
                body: "31",
                direct: false
            ),
            // What the router keeps.
            Step(method: "PUT", target: "/open/a.json", headers: [("If-Match", "\"nope\"")], body: "6", direct: false),
            Step(
                method: "PUT",
                target: "/open/a.json",
                headers: [("X-Firebase-ETag", "true")],
                body: "6",
                direct: false
            ),
            Step(method: "PUT", target: "/open/a/.priority.json", body: "3", direct: false),
            Step(method: "PUT", target: "/open/e.json?writeSizeLimit=tiny", body: "1", direct: false),
            Step(method: "PUT", target: "/open/e.json?format=export", body: "1", direct: false),
            Step(method: "POST", target: "/open/e.json?x-http-method-override=PUT", body: "2", direct: false),
            Step(method: "PUT", target: "/open/f.json", body: large, direct: false),
            Step(method: "DELETE", target: "/open/f.json", direct: true),
            Step(method: "DELETE", target: "/open/b.json?print=silent", body: "ignored", direct: true),
            Step(method: "DELETE", target: "/closed/x.json", direct: true),
            // A namespace not open yet is the router's; once open, the direct path's.
            Step(method: "PUT", target: "/open/g.json?ns=other", body: "1", direct: false),
            Step(method: "PUT", target: "/open/g.json?ns=other&\(admin)", body: "1", direct: false),
            Step(method: "PUT", target: "/open/h.json?ns=other&\(admin)", body: "2", direct: true),
        ]
    }()

    /// Each reply as compared: status, headers but `Date` and `Connection`, body; push ids made
    /// alike. (The router closes a connection whose request body it left unread, when the body
    /// had not all arrived with the head: a refusal before the body, a `DELETE`'s body. The
    /// direct path reads small bodies whole, so it keeps the connection.)
    static func normalized(_ reply: TestServer.Reply) -> String {
        let headers = reply.headers.filter { !["date", "connection"].contains($0.name.lowercased()) }.map {
            "\($0.name.lowercased()): \($0.value)"
        }
        return "\(reply.status) \(headers) \(pushIDsHidden(reply.body))"
    }

    static func pushIDsHidden(_ text: String) -> String {
        text.replacingOccurrences(of: #"-[0-9A-Za-z_-]{19}"#, with: "<push id>", options: .regularExpression)
    }

    /// The replies, the data after and the direct writes counted, by a server with the direct
    /// path on or off.
    static func run(direct: Bool) async throws -> (replies: [String], data: [String], counted: Double) {
        var replies: [String] = []
        var data: [String] = []
        var counted = 0.0
        try await TestServer.with(
            prepare: { configuration, _ in
                configuration.directRESTWrites = direct
                try rules.write(toFile: configuration.rulesFile, atomically: true, encoding: .utf8)
            },
            run: { server in
                for step in steps {
                    let before = try await directWrites(server)
                    let reply = try await server.send(step.method, step.target, headers: step.headers, text: step.body)
                    replies.append("\(step): \(normalized(reply))")
                    let after = try await directWrites(server)
                    if direct {
                        #expect(after - before == (step.direct ? 1 : 0), "\(step): \(reply.status) \(reply.body)")
                    }
                    counted = after
                }
                data.append(pushIDsHidden(try await server.get("/")))
                data.append(pushIDsHidden(try await server.get("/", ns: "other")))
            }
        )
        return (replies, data, counted)
    }

    static func directWrites(_ server: TestServer) async throws -> Double {
        let metrics = try await server.send("GET", "/metrics?\(admin)")
        return PrometheusText.sample("hearth_rest_direct_writes_total", in: metrics.body) ?? 0
    }

    @Test func everyWriteIsAnsweredAsTheRouterAnswersIt() async throws {
        let routed = try await Self.run(direct: false)
        let direct = try await Self.run(direct: true)
        #expect(routed.counted == 0)
        #expect(direct.counted == Double(Self.steps.filter(\.direct).count))
        #expect(direct.replies.count == routed.replies.count)
        for (mine, theirs) in zip(direct.replies, routed.replies) { #expect(mine == theirs) }
        #expect(direct.data == routed.data)
        #expect(direct.data[0].contains(#""c":{"e":{"f":5}}"#))
    }

    /// Requests sent at once on one connection are answered in order, whichever path answers
    /// each: a write here, a read by the router that sees it, a refusal, more writes.
    @Test func pipelinedRequestsAreAnsweredInOrder() async throws {
        try await TestServer.with(rules: Self.rules) { server in
            _ = try await server.get("/open")  // opens the namespace
            func request(_ method: String, _ target: String, _ body: String = "") -> String {
                "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
            }
            let burst = [
                request("PUT", "/open/p.json", #"{"n":1}"#),
                request("GET", "/open/p.json"),
                request("PUT", "/open/q.json", "1"),
                request("PATCH", "/open.json", "[1]"),
                request("POST", "/open/r.json", "true"),
                request("PUT", "/open/q.json", "2"),
                request("GET", "/open/q.json"),
                request("PUT", "/closed/x.json", "1"),
                request("PATCH", "/open/p.json", #"{"m":2}"#),
                request("GET", "/open/p.json"),
                "DELETE /open/q.json HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
                request("GET", "/open/q.json"),
            ]
            // The blocking socket off the cooperative pool, which the server's router needs.
            let answers = try await onThread { () -> [String] in
                let connection = try RawConnection(port: server.port)
                defer { connection.closeSocket() }
                guard connection.send(burst.joined()) else { return [] }
                var answers: [String] = []
                for _ in burst {
                    guard let response = try connection.readResponse() else { break }
                    answers.append("\(response.status) \(Self.pushIDsHidden(response.body))")
                }
                return answers
            }
            #expect(
                answers == [
                    #"200 {"n":1}"#,
                    #"200 {"n":1}"#,
                    "200 1",
                    "400 {\n  \"error\" : \"Invalid data; couldn't parse JSON object, array, or value.\"\n}\n",
                    #"200 {"name":"<push id>"}"#,
                    "200 2",
                    "200 2",
                    "401 {\n  \"error\" : \"Permission denied\"\n}\n",
                    #"200 {"m":2}"#,
                    #"200 {"m":2,"n":1}"#,
                    "200 null",
                    "200 null",
                ]
            )
            // The first write at least (the router owes nothing then); those read while it was
            // written follow the router's answers, so they are the router's.
            #expect(try await Self.directWrites(server) >= 1)
        }
    }

    /// Bodies the direct path does not read (chunked, or past its size) reach the router whole.
    @Test func chunkedAndLargeBodiesAreTheRouters() async throws {
        try await TestServer.with(rules: Self.rules) { server in
            _ = try await server.get("/open")  // opens the namespace
            let chunked =
                "PUT /open/c.json HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n"
                + "4\r\n{\"a\"\r\n3\r\n:1}\r\n0\r\n\r\n"
            let large = "\"" + String(repeating: "y", count: 66_000) + "\""
            let sized = "PUT /open/l.json HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: \(large.utf8.count)\r\n\r\n"
            let (first, second) = try await onThread { () -> (RawConnection.Response?, RawConnection.Response?) in
                let connection = try RawConnection(port: server.port)
                defer { connection.closeSocket() }
                guard connection.send(chunked + sized + large) else { return (nil, nil) }
                return (try connection.readResponse(), try connection.readResponse())
            }
            #expect(first?.status == 200 && first?.body == #"{"a":1}"#)
            #expect(second?.status == 200 && second?.body == large)
            #expect(try await Self.directWrites(server) == 0)
            #expect(try await server.get("/open/c") == #"{"a":1}"#)
        }
    }

    /// The `Date` of an answer written below the router, as Hummingbird writes it.
    @Test func theDateHeaderIsIMFFixdate() {
        #expect(HTTPDateHeader.format(0) == "Thu, 01 Jan 1970 00:00:00 GMT")
        #expect(HTTPDateHeader.format(1_796_195_836) == "Wed, 02 Dec 2026 07:17:16 GMT")
        #expect(HTTPDateHeader.format(951_782_400) == "Tue, 29 Feb 2000 00:00:00 GMT")
    }
}
