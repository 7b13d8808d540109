import Foundation
import HearthServer
import HearthTestSupport
import Testing

/// Request bodies are bounded before they are buffered: over the size limit, refused by the
/// rules whatever they hold, or past the memory all bodies may hold together, a request is
/// answered before its body is sent, and the connection is closed instead of read to the end.
struct RequestBodyLimitTests {
    static let host = "Host: 127.0.0.1\r\n"

    static let rules = #"""
        {
          "rules": {
            "locked": { ".write": false },
            "members": { ".write": "auth != null" },
            "owned": { "$id": { ".write": "data.child('owner').val() === auth.uid" } },
            "checked": { ".write": "newData.val() === 'ok'" },
            "open": { ".write": true, "$id": { ".validate": "newData.isString()" } }
          }
        }
        """#

    static func withRules(_ configuration: inout HearthServerConfiguration, _: URL) throws {
        try rules.write(toFile: configuration.rulesFile, atomically: true, encoding: .utf8)
    }

    /// Sends a `method` head for a body of `length` bytes, then the body until the server
    /// answers; returns the answer and how many body bytes went out before it.
    static func sendUntilAnswered(
        port: Int,
        _ method: String,
        _ target: String,
        length: Int,
        headers: String = ""
    ) async throws -> (response: RawConnection.Response?, sent: Int, closed: Bool) {
        try await onThread {
            let connection = try RawConnection(port: port)
            connection.send("\(method) \(target) HTTP/1.1\r\n\(host)\(headers)Content-Length: \(length)\r\n\r\n")
            let sent = connection.sendBody(count: length)
            let response = try connection.readResponse(timeout: .seconds(10))
            try connection.waitForClose(timeout: .seconds(10))
            return (response, sent, connection.ended)
        }
    }

    @Test func announcedLengthOverTheLimitIsRefusedBeforeTheBody() async throws {
        try await TestServer.with(
            prepare: { configuration, _ in configuration.maxRequestBodyBytes = 1000 },
            run: { server in
                try await server.put("/a", "1")
                let answer = try await onThread { () -> RawConnection.Response? in
                    let connection = try RawConnection(port: server.port)
                    connection.send(
                        "PUT /a.json?auth=\(TestServer.adminSecret) HTTP/1.1\r\n\(Self.host)Content-Length: 10000000\r\n\r\n"
                    )
                    // No body byte sent: the head alone decides.
                    let response = try connection.readResponse(timeout: .seconds(5))
                    try connection.waitForClose(timeout: .seconds(5))
                    return response
                }
                #expect(answer?.status == 413)
                #expect(answer?.headers["connection"] == "close")
                #expect(answer?.body.contains("the limit is 1000 bytes") == true)
                #expect(try await server.get("/a") == "1")
            }
        )
    }

    /// `PUT` and `POST` the rules deny whatever they hold: 401 before the body (50 MB announced).
    @Test(arguments: [
        ("PUT", "/locked/x.json"),
        ("POST", "/locked.json"),
        ("PUT", "/members/x.json"),
        ("PUT", "/.json"),
        ("PUT", "/locked/.priority.json"),
    ])
    func deniedWritesAreRefusedBeforeTheBody(_ method: String, _ target: String) async throws {
        try await TestServer.with(prepare: Self.withRules) { server in
            let length = 50 << 20
            let (response, sent, closed) = try await Self.sendUntilAnswered(
                port: server.port,
                method,
                target,
                length: length
            )
            #expect(response?.status == 401, "\(method) \(target): \(String(describing: response))")
            #expect(response?.body.contains("Permission denied") == true)
            #expect(sent < length, "\(method) \(target): the whole body went out before the answer")
            #expect(closed)
        }
    }

    /// A rule on the current data: read once for a large body, so refused before it too.
    @Test func deniedByTheCurrentDataIsRefusedBeforeALargeBody() async throws {
        try await TestServer.with(prepare: Self.withRules) { server in
            try await server.put("/owned/o1", #"{"owner":"alice"}"#)
            let token = TokenMinter.token(uid: "bob")
            let length = 50 << 20
            let (response, sent, _) = try await Self.sendUntilAnswered(
                port: server.port,
                "PUT",
                "/owned/o1.json?auth=\(token)",
                length: length
            )
            #expect(response?.status == 401)
            #expect(sent < length)
            // The owner is not refused early: her write is judged on its body.
            let own = try await server.send(
                "PUT",
                "/owned/o1.json?auth=\(TokenMinter.token(uid: "alice"))",
                text: #"{"owner":"alice","v":1}"#
            )
            #expect(own.status == 200)
        }
    }

    /// Rules that read `newData` need the body: read, then judged (small bodies here).
    @Test func rulesOnTheNewDataJudgeTheBody() async throws {
        try await TestServer.with(prepare: Self.withRules) { server in
            let refused = try await server.send("PUT", "/checked.json", text: #""no""#)
            #expect(refused.status == 401)
            let allowed = try await server.send("PUT", "/checked.json", text: #""ok""#)
            #expect(allowed.status == 200, "\(allowed.body)")
            let invalid = try await server.send("PUT", "/open/x.json", text: "1")
            #expect(invalid.status == 401)
            let valid = try await server.send("PUT", "/open/x.json", text: #""s""#)
            #expect(valid.status == 200)
            #expect(JSONCompare.equal(try await server.get("/"), #"{"checked":"ok","open":{"x":"s"}}"#))
        }
    }

    @Test func invalidCredentialIsRefusedBeforeTheBody() async throws {
        try await TestServer.with(prepare: Self.withRules) { server in
            let length = 50 << 20
            let (response, sent, _) = try await Self.sendUntilAnswered(
                port: server.port,
                "PUT",
                "/open/x.json?auth=not-a-token",
                length: length
            )
            #expect(response?.status == 401)
            #expect(sent < length)
        }
    }

    @Test func bodiesInFlightShareTheMemoryLimit() async throws {
        try await TestServer.with(
            prepare: { configuration, _ in
                configuration.maxRequestBodyBytes = 1 << 20
                configuration.maxBodyMemoryBytes = 1 << 20
            },
            run: { server in
                let value = "\"" + String(repeating: "x", count: 700_000) + "\""
                let target = "/big.json?auth=\(TestServer.adminSecret)"
                let head = "PUT \(target) HTTP/1.1\r\n\(Self.host)Content-Length: \(value.utf8.count)\r\n\r\n"
                // The first upload holds 600,000 bytes and waits; another 700 KB body does not
                // fit beside them and is refused; the first then completes. A probe read while
                // the first upload's bytes still arrive may crowd them out instead (the first is
                // refused, or both are): then the scenario starts again, at most 20 times.
                var refused: RawConnection.Response?
                var firstAnswer: RawConnection.Response?
                for _ in 0..<20 where firstAnswer?.status != 200 {
                    refused = nil
                    let first = try RawConnection(port: server.port)
                    _ = try await onThread { first.send(head + String(value.prefix(600_000))) }
                    var firstEnded = false
                    try await eventually(timeout: .seconds(60)) {
                        let probe = try await onThread {
                            let second = try RawConnection(port: server.port)
                            second.send(head + value)
                            return try second.readResponse()
                        }
                        if probe?.status == 503 { refused = probe }
                        firstEnded = try await onThread { (try? first.readResponse(timeout: .milliseconds(20))) != nil }
                        return refused != nil || firstEnded
                    }
                    guard refused != nil, !firstEnded else { continue }
                    firstAnswer = try await onThread { () -> RawConnection.Response? in
                        first.send(String(value.dropFirst(600_000)))
                        return try first.readResponse()
                    }
                }
                #expect(refused?.status == 503)
                #expect(refused?.headers["retry-after"] == "1")
                #expect(refused?.body.contains("retry shortly") == true)
                // The first completed, and its memory is returned.
                #expect(firstAnswer?.status == 200)
                let again = try await server.send("PUT", target, text: value)
                #expect(again.status == 200)
            }
        )
    }
}
