import Foundation
import HearthServer
import HearthTestSupport
import Testing

/// Abuse: nesting as deep as a body allows (REST bodies and query values, WebSocket messages,
/// rules documents, rule expressions and their regular expressions, a seed import) and
/// regular expressions that backtrack catastrophically. Each is refused with a clear error or
/// cut off by a bound; nothing recurses without a bound, the server stays up and the control
/// client keeps working.
struct AbuseDeepTests {
    static let arrays = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
    static let objects = String(repeating: #"{"a":"#, count: 100) + "1" + String(repeating: "}", count: 100)

    @Test func deepRESTBodiesAndQueryValuesAreRefused400() async throws {
        try await AbuseServer.with { server, control in
            for (method, body) in [("PUT", Self.arrays), ("POST", Self.arrays), ("PATCH", "{\"x\":\(Self.arrays)}")] {
                let reply = try await server.send(method, "/open/deep.json", text: body)
                #expect(reply.status == 400, "\(method): \(reply.status)")
                // Arrays are objects keyed 0, 1, …: the 32 levels of a path may come before the
                // 512 levels of JSON.
                #expect(reply.body.contains("can be nested at most"), "\(method): \(reply.body.prefix(200))")
            }
            let objects = try await server.send("PUT", "/open/deep.json", text: Self.objects)
            #expect(objects.status == 400)
            #expect(objects.body.contains("nested at most 32 levels deep"), "\(objects.body.prefix(200))")
            // A query value nested 1,000 deep (the request line allows 32 KiB).
            let deepValue = String(repeating: "%5B", count: 1_000) + String(repeating: "%5D", count: 1_000)
            let query = try await server.send("GET", "/open.json?orderBy=%22%24key%22&equalTo=\(deepValue)")
            #expect(query.status == 400, "\(query.body.prefix(200))")
            #expect(query.body.contains("equalTo"), "the error names the parameter: \(query.body.prefix(200))")
            #expect(try await server.get("/open/deep") == "null")
            try await control.check()
        }
    }

    @Test func deepWebSocketMessagesAreAnsweredFailure() async throws {
        try await AbuseServer.with { server, control in
            let socket = try await RealtimeTestClient.connect(port: server.port)
            for data in [Self.arrays, Self.objects] {
                let reply = try await socket.response(to: socket.request("p", #"{"p":"/open/deep","d":\#(data)}"#))
                #expect(reply.body["s"] as? String == "failure", "\(reply.body)")
                #expect((reply.body["d"] as? String)?.contains("can be nested at most") == true, "\(reply.body)")
            }
            // The connection stays open and usable.
            let ok = try await socket.response(to: socket.request("p", #"{"p":"/open/shallow","d":[[1]]}"#))
            #expect(ok.body["s"] as? String == "ok", "\(ok.body)")
            await socket.close()
            #expect(try await server.get("/open/deep") == "null")
            try await control.check()
        }
    }

    @Test func deepRulesAreRefused400AndTheOldRulesStay() async throws {
        try await AbuseServer.with { server, control in
            let parentheses = String(repeating: "(", count: 100_000) + "true" + String(repeating: ")", count: 100_000)
            let groups = String(repeating: "(", count: 1_000) + "a" + String(repeating: ")", count: 1_000)
            let documents = [
                (
                    #"{"rules": "# + String(repeating: #"{"a":"#, count: 100_000) + "true"
                        + String(repeating: "}", count: 100_001),
                    "rules nested deeper than 32 levels"
                ),
                (#"{"rules": {".read": "\#(parentheses)"}}"#, "expression nested too deeply: at most 256 levels"),
                (
                    #"{"rules": {".read": "\#(String(repeating: "!", count: 100_000))true"}}"#,
                    "expression nested too deeply: at most 256 levels"
                ),
                (#"{"rules": {".read": "auth.uid.matches(/\#(groups)/)"}}"#, "groups nested deeper than 64"),
            ]
            for (document, message) in documents {
                let reply = try await server.send(
                    "PUT",
                    "/.settings/rules.json?auth=\(TestServer.adminSecret)",
                    text: document
                )
                #expect(reply.status == 400, "\(reply.status): \(reply.body.prefix(300))")
                #expect(reply.body.contains(message), "\(reply.body.prefix(300))")
            }
            #expect(try await server.send("GET", "/secret.json").status == 401, "the old rules still apply")
            try await control.check()
        }
    }

    @Test func deepSeedIsRefusedWithAClearError() async throws {
        do {
            try await TestServer.with(
                prepare: { configuration, directory in
                    let seed = directory.appendingPathComponent("seed.json")
                    try Self.arrays.write(to: seed, atomically: true, encoding: .utf8)
                    configuration.seedFile = seed.path
                },
                run: { _ in Issue.record("the server started with a seed it cannot import") }
            )
        } catch {
            #expect("\(error)".contains("data can be nested at most 32 levels deep"), "\(error)")
        }
    }

    /// `(a+)+$` against `a…ab` backtracks exponentially; the regex step budget cuts it off, and
    /// the write is denied as any rule that fails with an error.
    @Test func catastrophicRegexInTheRulesIsCutOffAndTheWriteDenied() async throws {
        try await AbuseServer.with { server, control in
            let evil = "\"" + String(repeating: "a", count: 40) + "b\""
            async let attack = server.send("PUT", "/regex/evil.json", text: evil)
            try await control.check()
            let reply = try await attack
            #expect(reply.status == 401, "\(reply.status): \(reply.body)")
            #expect(reply.body.contains("Permission denied"), "\(reply.body)")
            let long = "\"" + String(repeating: "a", count: 150_000) + "\""
            let accepted = try await server.send("PUT", "/regex/long.json", text: long)
            #expect(accepted.status == 200, "a long string that matches is fine: \(accepted.body.prefix(200))")
            #expect(try await server.get("/regex/evil") == "null")
            try await control.check()
        }
    }
}
