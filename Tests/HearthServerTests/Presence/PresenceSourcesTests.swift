import Foundation
import HearthServer
import HearthTestSupport
import Testing

/// Which connections count for presence: SSE streams of a user as well as WebSockets, each
/// presence namespace on its own; not the admin, an admin acting as a user, anonymous clients,
/// or namespaces without presence.
struct PresenceSourcesTests {
    @Test func aUsersSSEStreamCountsWhileItStreams() async throws {
        try await PresenceServer.with { app in
            let stream = try await SSETestStream.open(
                port: app.server.port,
                path: "/presence/\(app.uid("bob")).json?auth=\(app.token("ada"))"
            )
            #expect(stream.status == 200)
            #expect(try await stream.nextData().name == "put")
            try await app.waitFor("ada", "online")
            // A WebSocket beside it: the stream alone still holds ada online when it goes.
            let socket = try await app.connect("ada")
            await socket.close()
            let fence = try await app.fence("bob")
            #expect(try await app.state("ada") == "online")
            let cancelled = Date()
            stream.cancel()
            let delay = try await app.offlineDelay("ada", since: cancelled)
            // Caused by the stream's end (a loaded full run has taken 5.8 s; nothing else would
            // end ada's presence while the fence holds the test open).
            #expect(delay < .seconds(9), "offline \(delay) after the end")
            await fence.close()
        }
    }

    @Test func theAdminAnAdminActingAsAUserAndAnonymousClientsDoNotCount() async throws {
        try await PresenceServer.with { app in
            let admin = try await RealtimeTestClient.connect(port: app.server.port)
            try await admin.authenticateAsAdmin()
            let acting = try await RealtimeTestClient.connect(port: app.server.port)
            let gauth = try await acting.response(
                to: acting.request(
                    "gauth",
                    #"{"cred":"\#(TestServer.adminSecret)","authvar":{"uid":"\#(app.uid("ada"))"}}"#
                )
            )
            #expect(gauth.body["s"] as? String == "ok")
            let anonymous = try await RealtimeTestClient.connect(port: app.server.port)
            _ = try await anonymous.response(to: anonymous.request("q", #"{"p":"/x","h":""}"#))
            let override = #"{"uid":"\#(app.uid("bob"))"}"#
                .addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            let stream = try await SSETestStream.open(
                port: app.server.port,
                path:
                    "/presence/\(app.uid("bob")).json?auth=\(TestServer.adminSecret)&auth_variable_override=\(override)"
            )
            #expect(try await stream.nextData().name == "put")
            // A user's connection afterwards is the fence: its write is flushed with the others.
            let fence = try await app.connectRaw("ada")
            try await app.waitFor("ada", "online")
            #expect(try await app.server.get("/presence", query: "&shallow=true") == #"{"\#(app.uid("ada"))":true}"#)
            fence.abort()
            stream.cancel()
            await admin.close()
            await acting.close()
            await anonymous.close()
        }
    }

    /// Under `--emulator` the SDK's `mockUserToken` (unsigned) signs a user in, with or without an
    /// account: its connections count like any user's.
    @Test func anEmulatorMockTokenUserCounts() async throws {
        try await PresenceServer.with(users: [], prepare: { $0.emulator = true }) { app in
            let client = try await RealtimeTestClient.connect(port: app.server.port)
            let mock = TokenMinter.token(uid: "mock-user", algorithm: "none")
            let auth = try await client.response(to: client.request("auth", #"{"cred":"\#(mock)"}"#))
            #expect(auth.body["s"] as? String == "ok")
            _ = try await eventually({ try await app.server.get("/presence/mock-user") }) { $0.contains("online") }
            #expect(try await app.server.get("/presence/mock-user").contains(#""state":"online""#))
            await client.close()
            _ = try await eventually({ try await app.server.get("/presence/mock-user") }) { $0.contains("offline") }
            #expect(try await app.server.get("/presence/mock-user").contains(#""state":"offline""#))
        }
    }

    @Test func eachPresenceNamespaceCountsItsOwnConnectionsAndOthersNone() async throws {
        try await PresenceServer.with { app in
            let chat2 = try await app.connect("ada", ns: "chat2")
            let other = try await app.connect("bob", ns: "elsewhere")
            try await app.waitFor("ada", "online", ns: "chat2")
            #expect(try await app.state("ada") == nil)
            await other.close()
            let bob = try await app.connect("bob")
            try await app.waitFor("bob", "online")
            #expect(try await app.server.get("/presence", ns: "elsewhere") == "null")
            await chat2.close()
            try await app.waitFor("ada", "offline", ns: "chat2")
            await bob.close()
        }
    }

    /// The window closes when the test says (a stepped clock), after the reconnect however long
    /// that took on a busy machine: nothing is written for the drop.
    @Test func aDropAndReconnectInsideTheWindowWritesNothing() async throws {
        try await PresenceServer.with(clock: SteppedClock()) { app in
            let first = try await app.connectRaw("ada")
            try await app.closeWindow()
            try await app.waitFor("ada", "online")
            let written = try #require(try await app.entry("ada")?["lastChanged"] as? Double)
            // The admin watches ada's entry (and does not count for presence itself).
            let watcher = try await RealtimeTestClient.connect(port: app.server.port)
            try await watcher.authenticateAsAdmin()
            let listen = try await watcher.response(
                to: watcher.request("q", #"{"p":"/presence/\#(app.uid("ada"))","h":""}"#)
            )
            #expect(listen.body["s"] as? String == "ok")
            // The connection drops: once the server has counted it, its window is open...
            first.abort()
            try await app.clock?.waitForSleepers()
            // ...and the app reconnects inside it. bob's connection afterwards is the fence:
            // written by the flush that closes the window, with whatever it writes for ada.
            let second = try await app.connectRaw("ada")
            let fence = try await app.connect("bob")
            try await app.closeWindow()
            try await app.waitFor("bob", "online")
            // No push reached the listener, and the entry is the one written before.
            let sync = watcher.request("s", #"{"c":{"x":1}}"#)
            try await watcher.expectNothingBefore(answerTo: sync)
            #expect(try await app.entry("ada")?["lastChanged"] as? Double == written)
            #expect(try await app.state("ada") == "online")
            // The next drop without a reconnect is written when its window closes.
            second.abort()
            try await app.closeWindow()
            try await app.waitFor("ada", "offline")
            await fence.close()
            await watcher.close()
        }
    }

    @Test func aRemovedEntryIsNotWrittenBackWhenTheConnectionEnds() async throws {
        try await PresenceServer.with { app in
            let client = try await app.connect("ada")
            try await app.waitFor("ada", "online")
            // What account deletion does before it revokes the user's tokens.
            let removed = try await app.server.send(
                "DELETE",
                TestServer.url("/presence/\(app.uid("ada"))", admin: true)
            )
            #expect(removed.status == 200)
            await client.close()
            let fence = try await app.fence("bob")
            #expect(try await app.entry("ada") == nil)
            // A later connection is a new presence.
            let again = try await app.connect("ada")
            try await app.waitFor("ada", "online")
            await again.close()
            try await app.waitFor("ada", "offline")
            await fence.close()
        }
    }
}

/// A deleted account's presence goes with it and does not come back.
struct PresenceAccountDeletionTests {
    @Test func deletingAConnectedUsersAccountRemovesTheirEntry() async throws {
        try await PresenceServer.with(prepare: { configuration in
            configuration.realtime.tickInterval = .milliseconds(100)
        }) { app in
            let client = try await app.connect("ada")
            try await app.waitFor("ada", "online")
            let deleted = try await app.accounts.call(
                "delete",
                ["localId": app.uid("ada")],
                headers: [("Authorization", "Bearer \(TestServer.adminSecret)")]
            )
            #expect(deleted.status == 200)
            // The connection loses its user (`ac`), and the entry is removed, not set offline.
            let revoked = try await client.nextPush(timeout: .seconds(5))
            #expect(revoked["a"] as? String == "ac")
            try await app.waitFor("ada", nil)
            await client.close()
            let fence = try await app.fence("bob")
            #expect(try await app.entry("ada") == nil)
            await fence.close()
        }
    }
}
