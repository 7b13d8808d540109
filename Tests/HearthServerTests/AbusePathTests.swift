import Foundation
import HearthServer
import HearthTestSupport
import Testing

/// Abuse: paths spelled to slip past the rules (percent-encoded slashes and dots, `..`, `//`,
/// look-alike dots, `.json` suffix tricks, `.priority`/`.value` children, `$` keys). Each is
/// refused with 400 or gets exactly the decision of the path it spells, and no answer holds
/// the secret. Targets are sent byte for byte (`RawHTTP`): HTTP clients would re-encode them.
struct AbusePathTests {
    struct Spelling: Sendable, CustomTestStringConvertible {
        /// The raw request target, without `.json` unless the case is about it.
        let target: String
        /// The canonical target whose answer it must get if it is not refused with 400; nil:
        /// only 400 is right.
        let canonical: String?
        /// The refusal it gets instead of 400 (404: not a `.json` target; 401: a bad credential).
        var refusal = 400
        var testDescription: String { target }
    }

    static let reads: [Spelling] = [
        Spelling(target: "/secret.json", canonical: "/secret.json"),
        Spelling(target: "/%73ecret.json", canonical: "/secret.json"),
        Spelling(target: "//secret.json", canonical: "/secret.json"),
        Spelling(target: "/public//..//secret.json", canonical: nil),
        Spelling(target: "/public/../secret.json", canonical: nil),
        Spelling(target: "/public/..%2Fsecret.json", canonical: nil),
        Spelling(target: "/public/%2E%2E/secret.json", canonical: nil),
        Spelling(target: "/public/%2e%2e%2fsecret.json", canonical: nil),
        Spelling(target: "/public%2F..%2Fsecret.json", canonical: nil),
        Spelling(target: "/secret%2Fx.json", canonical: "/secret/x.json"),
        Spelling(target: "/public/./secret.json", canonical: nil),
        Spelling(target: "/public/%E2%80%A4%E2%80%A4/secret.json", canonical: "/public/%E2%80%A4%E2%80%A4/secret.json"),
        Spelling(target: "/public/%EF%BC%8E%EF%BC%8E/secret.json", canonical: "/public/%EF%BC%8E%EF%BC%8E/secret.json"),
        Spelling(target: "/secret.json.json", canonical: nil),
        Spelling(target: "/secret%2Ejson", canonical: nil, refusal: 404),
        Spelling(target: "/secret%2Ejson.json", canonical: nil),
        Spelling(target: "/public/note.json/../../secret.json", canonical: nil),
        // The priority of /secret is read under /secret's rules.
        Spelling(target: "/secret/.priority.json", canonical: "/secret.json"),
        Spelling(target: "/secret/.value.json", canonical: nil),
        Spelling(target: "/secret/$x.json", canonical: nil),
        Spelling(target: "/secret/%24x.json", canonical: nil),
        Spelling(target: "/%2Esecret.json", canonical: nil),
        Spelling(target: "/secret%00.json", canonical: nil),
        Spelling(target: "/secret%.json", canonical: nil),
        Spelling(target: "/users/ada%2Fsecret.json", canonical: "/users/ada/secret.json"),
        Spelling(target: "/users/%61da/secret.json", canonical: "/users/ada/secret.json"),
        Spelling(target: "/.json?shallow=true", canonical: "/.json?shallow=true"),
        Spelling(target: "/secret.json?format=export", canonical: "/secret.json?format=export"),
        Spelling(target: "/secret.json?auth=", canonical: nil, refusal: 401),
    ]

    /// Answers `target` as an anonymous client; the answer never holds the secret.
    static func read(_ server: TestServer, _ target: String) async throws -> (Int, String) {
        let (status, body) = try await RawHTTP.send(port: server.port, method: "GET", target: target)
        #expect(!body.contains(AbuseServer.secretValue), "\(target) answered the secret: \(body)")
        #expect(status < 500, "\(target): \(status) \(body)")
        return (status, body)
    }

    @Test func readsSpelledAnotherWayGetTheCanonicalDecisionOr400() async throws {
        try await AbuseServer.with { server, control in
            #expect(try await Self.read(server, "/secret.json").0 == 401, "the canonical path is denied")
            for spelling in Self.reads {
                let (status, body) = try await Self.read(server, spelling.target)
                if status == 400 || status == spelling.refusal {
                    #expect(body.contains("\"error\""), "\(spelling.target): \(body)")
                    continue
                }
                guard let canonical = spelling.canonical else {
                    Issue.record("\(spelling.target) answered \(status) \(body), not 400")
                    continue
                }
                let expected = try await Self.read(server, canonical)
                #expect(
                    status == expected.0 && body == expected.1,
                    "\(spelling.target): \(status) \(body) vs \(expected)"
                )
            }
            try await control.check()
        }
    }

    static let writes: [String] = [
        "/open/..%2Fsecret.json", "/open/%2E%2E/secret.json", "/open/../secret.json", "/open/.%2E/secret.json",
        "/open%2F..%2Fsecret.json", "/secret/.priority.json", "/secret/.value.json", "/open/.value.json",
    ]

    @Test func writesSpelledAnotherWayNeverReachTheSecret() async throws {
        try await AbuseServer.with { server, control in
            for target in Self.writes {
                let (status, body) = try await RawHTTP.send(
                    port: server.port,
                    method: "PUT",
                    target: target,
                    body: "\"x\""
                )
                #expect(status == 400 || status == 401, "\(target): \(status) \(body)")
            }
            let patches = [#"{"../secret":"x"}"#, #"{"a/../../secret":"x"}"#, #"{"./secret":"x"}"#]
            for patch in patches {
                let (status, body) = try await RawHTTP.send(
                    port: server.port,
                    method: "PATCH",
                    target: "/open.json",
                    body: patch
                )
                #expect(status == 400, "\(patch): \(status) \(body)")
            }
            // A multi-path update's paths are relative to its location: `/secret` here is
            // /open/secret; keys in a body are not percent-decoded: `%2E%2E` is a key of its own.
            let (status, _) = try await RawHTTP.send(
                port: server.port,
                method: "PATCH",
                target: "/open.json",
                body: #"{"/secret":"x","%2E%2E/secret":"y"}"#
            )
            #expect(status == 200)
            #expect(try await server.get("/open/secret") == "\"x\"")
            #expect(try await server.get("/open/%252E%252E/secret") == "\"y\"")
            #expect(try await server.get("/secret") == "\"\(AbuseServer.secretValue)\"", "the secret is unchanged")
            try await control.check()
        }
    }

    /// WebSocket paths are keys as sent (no percent-decoding, as in Firebase's protocol):
    /// `%2E%2E` is a key of its own, here a readable child of /public.
    @Test func webSocketPathsSpelledAnotherWayAreRefusedOrLiteral() async throws {
        try await AbuseServer.with { server, control in
            let socket = try await RealtimeTestClient.connect(port: server.port)
            for path in [
                "/public/../secret", "/public/./secret", "/secret/.priority", "/secret/.value", "/secret/$x",
                "//secret",
            ] {
                let listen = try await socket.response(to: socket.request("q", #"{"p":"\#(path)","h":""}"#))
                #expect(listen.body["s"] as? String != "ok", "listen \(path): \(listen.body)")
                #expect(listen.pushes.isEmpty, "listen \(path) got data: \(listen.pushes)")
                let put = try await socket.response(to: socket.request("p", #"{"p":"\#(path)","d":"x"}"#))
                #expect(put.body["s"] as? String != "ok", "put \(path): \(put.body)")
            }
            let literal = try await socket.response(to: socket.request("q", #"{"p":"/public/%2E%2E/secret","h":""}"#))
            #expect(literal.body["s"] as? String == "ok", "\(literal.body)")
            let data = literal.pushes.map { ($0["b"] as? [String: Any])?["d"] }
            #expect(data.count == 1 && data[0] is NSNull, "\(literal.pushes)")
            await socket.close()
            #expect(try await server.get("/secret") == "\"\(AbuseServer.secretValue)\"")
            try await control.check()
        }
    }
}
