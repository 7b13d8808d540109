import Foundation
import HearthServer
import HearthTestSupport
import Testing

/// Abuse: reaching one namespace's data through another. Namespace `a` lets `ada` read and
/// write `/shared` (and reads `/gated` when its own `/flag` is true); namespace `b` lets nobody
/// in. Only `?ns=` names a namespace (its first value); the `Host` header does not.
struct AbuseNamespaceTests {
    static let rulesOfA = """
        {"rules": {
          "shared": {".read": "auth != null && auth.uid == 'ada'", ".write": "auth != null && auth.uid == 'ada'"},
          "gated": {".read": "root.child('flag').val() === true"}
        }}
        """

    static func twoNamespaces(_ configuration: inout HearthServerConfiguration, _: URL) throws {
        let rules = URL(fileURLWithPath: configuration.rulesFile).deletingLastPathComponent()
        try rulesOfA.write(to: rules.appendingPathComponent("a.rules.json"), atomically: true, encoding: .utf8)
        try #"{"rules": {".read": false, ".write": false}}"#
            .write(to: rules.appendingPathComponent("b.rules.json"), atomically: true, encoding: .utf8)
    }

    static func seed(_ server: TestServer) async throws {
        try await server.put("/shared", "\"\(AbuseServer.secretValue)\"", ns: "b")
        try await server.put("/flag", "true", ns: "b")
        try await server.put("/gated", "\"\(AbuseServer.secretValue)\"", ns: "a")
        try await server.put("/shared", "\"a-data\"", ns: "a")
    }

    @Test func oneNamespacesRulesAndTokensDoNotOpenAnother() async throws {
        try await AbuseServer.with(configure: Self.twoNamespaces) { server, control in
            try await Self.seed(server)
            let ada = TokenMinter.token(uid: "ada")
            func read(_ target: String, headers: [(String, String)] = []) async throws -> TestServer.Reply {
                let reply = try await server.send("GET", target, headers: headers)
                #expect(!reply.body.contains(AbuseServer.secretValue), "\(target) answered the secret: \(reply.body)")
                return reply
            }
            #expect(try await read("/shared.json?ns=a&auth=\(ada)").body == "\"a-data\"", "a lets ada in")
            #expect(try await read("/shared.json?ns=b&auth=\(ada)").status == 401, "b does not")
            #expect(try await read("/shared.json?ns=b").status == 401)
            // The first `ns` decides, for the rules and the data alike.
            #expect(try await read("/shared.json?ns=a&ns=b&auth=\(ada)").body == "\"a-data\"")
            #expect(try await read("/shared.json?ns=b&ns=a&auth=\(ada)").status == 401)
            // a's rule reads a's `/flag`, not b's.
            #expect(try await read("/gated.json?ns=a").status == 401)
            // Names that are not b's.
            for ns in ["B", "b%00", "..%2Fb", "b.json", "b%20", "%62"] {
                let reply = try await read("/shared.json?ns=\(ns)&auth=\(ada)")
                #expect(reply.status == 400 || reply.status == 401, "ns=\(ns): \(reply.status) \(reply.body)")
            }
            // The Host header names no namespace: this is the default namespace's /shared.
            let hosted = try await read("/shared.json?auth=\(ada)", headers: [("Host", "b.localhost")])
            #expect(hosted.status == 401, "\(hosted.body)")
            let rules = try await read("/.settings/rules.json?ns=b&auth=\(ada)")
            #expect(rules.status == 401, "\(rules.body)")
            let stream = try await SSETestStream.open(port: server.port, path: "/shared.json?ns=b&auth=\(ada)")
            #expect(stream.status == 401)
            stream.cancel()
            let write = try await server.send("PUT", "/shared.json?ns=b&auth=\(ada)", text: "\"x\"")
            #expect(write.status == 401)
            #expect(try await server.get("/shared", ns: "b") == "\"\(AbuseServer.secretValue)\"")
            try await control.check()
        }
    }

    @Test func aWebSocketOfOneNamespaceStaysInIt() async throws {
        try await AbuseServer.with(configure: Self.twoNamespaces) { server, control in
            try await Self.seed(server)
            let ada = TokenMinter.token(uid: "ada")
            let inB = try await RealtimeTestClient.connect(port: server.port, ns: "b")
            let auth = try await inB.response(to: inB.request("auth", #"{"cred":"\#(ada)"}"#))
            #expect(auth.body["s"] as? String == "ok")
            let listen = try await inB.response(to: inB.request("q", #"{"p":"/shared","h":""}"#))
            #expect(listen.body["s"] as? String == "permission_denied", "\(listen.body)")
            #expect(listen.pushes.isEmpty)
            await inB.close()
            // A second `ns` in the upgrade does not move a's connection into b.
            let twice = try await RealtimeTestClient.connect(port: server.port, query: "v=5&ns=a&ns=b")
            _ = try await twice.response(to: twice.request("auth", #"{"cred":"\#(ada)"}"#))
            let shared = try await twice.response(to: twice.request("q", #"{"p":"/shared","h":""}"#))
            #expect(shared.body["s"] as? String == "ok", "\(shared.body)")
            let data = shared.pushes.compactMap { ($0["b"] as? [String: Any])?["d"] as? String }
            #expect(data == ["a-data"], "\(shared.pushes)")
            await twice.close()
            try await control.check()
        }
    }
}
