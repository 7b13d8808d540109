import Foundation
import HearthServer
import HearthTestSupport
import Testing

/// Nobody is online after a restart: a clean stop writes `offline` for everyone it left
/// `online`, and every start sets what a stopped server left `online` (a crash, `kill -9`:
/// here an entry the new process never wrote) to `offline` before it serves.
struct PresenceRestartTests {
    @Test func aCleanStopWritesOfflineAndTheNextStartSweepsWhatIsLeftOnline() async throws {
        let temporary = try TemporaryDirectory(prefix: "hearth-presence-restart")
        defer { temporary.remove() }
        let directory = temporary.url
        var configuration = HearthServerConfiguration.testing(in: directory)
        configuration.presence = PresenceConfiguration(namespaces: ["default"])

        let (first, one) = try await TestServer.start(configuration, in: directory)
        // Left by a process killed while its users were connected.
        try await one.put("/presence/zed", #"{"state":"online","lastChanged":5}"#)
        try await one.put("/presence/old", #"{"state":"offline","lastChanged":7}"#)
        var clients: [RealtimeTestClient] = []
        for uid in ["ada", "bob"] {
            let client = try await RealtimeTestClient.connect(port: first.port)
            let reply = try await client.response(
                to: client.request("auth", #"{"cred":"\#(TokenMinter.token(uid: uid))"}"#)
            )
            #expect(reply.body["s"] as? String == "ok")
            clients.append(client)
        }
        _ = try await eventually({ try await one.get("/presence") }) {
            $0.components(separatedBy: "\"online\"").count == 4  // ada, bob, zed
        }
        // Stopped with both users still connected.
        await first.shutdown()
        for client in clients { await client.close() }
        let stopped = Date().timeIntervalSince1970 * 1000

        let (second, two) = try await TestServer.start(configuration, in: directory)
        let text = try await two.get("/presence")
        await second.shutdown()
        let entries = try #require(
            try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: [String: Any]]
        )
        #expect(entries.values.allSatisfy { $0["state"] as? String == "offline" })
        // ada and bob were written offline by the clean stop, zed by the start's sweep; old
        // was offline already and is left as it was.
        for uid in ["ada", "bob"] {
            let lastChanged = try #require(entries[uid]?["lastChanged"] as? Double)
            #expect(lastChanged <= stopped)
        }
        #expect(try #require(entries["zed"]?["lastChanged"] as? Double) >= stopped.rounded(.down))
        #expect(entries["old"]?["lastChanged"] as? Double == 7)
        #expect(entries.count == 4)
    }
}
