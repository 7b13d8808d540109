import Foundation
import HearthServer
import HearthTestSupport
import Testing

/// The server's clock (`HearthServerConfiguration.clock`) stamps server values and is the
/// rules' `now`, for REST and WebSocket alike: a test sets the time instead of sleeping.
struct ServerClockTests {
    static let start = 1_700_000_000_000.0
    static let rules = """
        {"rules": {
          "stamps": {".read": true, ".write": true},
          "window": {".read": "auth != null && now < \(Int(start) + 1000)"},
          "due": {".read": true, ".write": "auth != null && newData.val() <= now"}
        }}
        """

    static func withServer(_ body: (TestServer, ManualClock) async throws -> Void) async throws {
        let clock = ManualClock(milliseconds: start)
        try await TestServer.with(
            prepare: { configuration, _ in
                try rules.write(toFile: configuration.rulesFile, atomically: true, encoding: .utf8)
                configuration.clock = clock.serverClock
            },
            run: { server in try await body(server, clock) }
        )
    }

    @Test func serverTimestampsAreTheClocksTime() async throws {
        try await Self.withServer { server, clock in
            try await server.put("/stamps/a", #"{".sv":"timestamp"}"#)
            #expect(try await server.get("/stamps/a") == "1700000000000")
            clock.advance(by: 2500)
            let client = try await RealtimeTestClient.connect(port: server.port)
            try await client.authenticateAsAdmin()
            let put = try await client.response(to: client.request("p", #"{"p":"/stamps/b","d":{".sv":"timestamp"}}"#))
            #expect(put.body["s"] as? String == "ok")
            #expect(try await server.get("/stamps/b") == "1700000002500")
            await client.close()
        }
    }

    @Test func theRulesNowIsTheClocksTime() async throws {
        try await Self.withServer { server, clock in
            let alice = [("Authorization", "Bearer \(TokenMinter.token(uid: "alice"))")]
            try await server.put("/window", #"{"open":true}"#)
            #expect(try await server.send("GET", "/window.json", headers: alice).status == 200)
            // A read judged after the window closed, with no waiting.
            clock.advance(by: 1000)
            #expect(try await server.send("GET", "/window.json", headers: alice).status == 401)

            // A write of a time not yet reached is refused; once the clock reaches it, allowed.
            let due = "\(Int(Self.start) + 5000)"
            #expect(try await server.send("PUT", "/due.json", headers: alice, text: due).status == 401)
            clock.set(Self.start + 5000)
            #expect(try await server.send("PUT", "/due.json", headers: alice, text: due).status == 200)
            #expect(try await server.get("/due") == due)
        }
    }
}
