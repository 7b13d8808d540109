import Foundation
import HearthServer
import HearthTestSupport
import Testing

/// The shipped rules on presence, by REST and over the WebSocket: signed-in users read one
/// entry; nobody lists them, and no client writes them, their own included.
struct PresenceRulesTests {
    /// `rules/database.rules.json` of the package.
    static let shippedRules = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("rules/database.rules.json")

    @Test func signedInUsersReadOneEntryAndNoClientWritesAny() async throws {
        let rules = try String(contentsOf: Self.shippedRules, encoding: .utf8)
        try await PresenceServer.with(prepare: { configuration in
            try? rules.write(toFile: configuration.rulesFile, atomically: true, encoding: .utf8)
        }) { app in
            let ada = try await app.connect("ada")
            try await app.waitFor("ada", "online")
            let server = app.server
            let entry = "/presence/\(app.uid("ada")).json"
            let read = try await server.send("GET", "\(entry)?auth=\(app.token("bob"))")
            #expect(read.status == 200)
            #expect(read.body.contains(#""state":"online""#))
            #expect(try await server.send("GET", entry).status == 401)
            #expect(try await server.send("GET", "/presence.json?auth=\(app.token("bob"))").status == 401)
            for (method, path, body) in [
                ("PUT", entry, #"{"state":"offline","lastChanged":1}"#),
                ("PATCH", entry, #"{"state":"offline"}"#),
                ("DELETE", entry, ""),
                ("PUT", "/presence/\(app.uid("bob")).json", #"{"state":"online","lastChanged":1}"#),
            ] {
                let reply = try await server.send(method, "\(path)?auth=\(app.token("ada"))", text: body)
                #expect(reply.status == 401, "\(method) \(path)")
                #expect(reply.body.contains("Permission denied"))
            }
            // Over the WebSocket: a put of its own entry is refused, a listen on it allowed.
            let put = try await ada.response(
                to: ada.request("p", #"{"p":"/presence/\#(app.uid("ada"))/state","d":"offline"}"#)
            )
            #expect(put.body["s"] as? String == "permission_denied")
            let listen = try await ada.response(to: ada.request("q", #"{"p":"/presence/\#(app.uid("bob"))","h":""}"#))
            #expect(listen.body["s"] as? String == "ok")
            #expect(try await app.state("ada") == "online")
            await ada.close()
        }
    }
}
