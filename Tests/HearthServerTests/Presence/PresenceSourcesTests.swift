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
            try await Task.sleep(for: .milliseconds(300))
            #expect(try await app.state("ada") == "online")
            let cancelled = Date()
            stream.cancel()
            let delay = try await app.offlineDelay("ada", since: cancelled)
            // Caused by the stream's end.
            #expect(delay < .seconds(5), "offline \(delay) after the end")
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

    @Test func aDropAndReconnectInsideTheWindowWritesNothing() async throws {
        // The widest window (1 s), so that the reconnect (a new socket and its auth) falls inside
        // it even on a machine busy with a whole test run.
        try await PresenceServer.with(prepare: { $0.presence.flushDelay = .seconds(1) }) { app in
            let first = try await app.connectRaw("ada")
            try await app.waitFor("ada", "online")
            let written = try #require(try await app.entry("ada")?["lastChanged"] as? Double)
            let watcher = try await app.connect("bob")
            let listen = try await watcher.response(
                to: watcher.request("q", #"{"p":"/presence/\#(app.uid("ada"))","h":""}"#)
            )
            #expect(listen.body["s"] as? String == "ok")
            // The connection drops and the app reconnects at once (well inside the window).
            let dropped = ContinuousClock.now
            first.abort()
            let second = try await app.connectRaw("ada")
            let reconnected = ContinuousClock.now - dropped
            try #require(reconnected < .seconds(1), "the reconnect took \(reconnected), past the window")
            try await Task.sleep(until: dropped + .milliseconds(1_800))
            // No push reached the listener, and the entry is the one written before.
            let fence = watcher.request("s", #"{"c":{"x":1}}"#)
            try await watcher.expectNothingBefore(answerTo: fence)
            #expect(try await app.entry("ada")?["lastChanged"] as? Double == written)
            #expect(try await app.state("ada") == "online")
            second.abort()
            try await app.waitFor("ada", "offline", timeout: .seconds(15))
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
            try await Task.sleep(for: .milliseconds(400))
            #expect(try await app.entry("ada") == nil)
            // A later connection is a new presence.
            let again = try await app.connect("ada")
            try await app.waitFor("ada", "online")
            await again.close()
            try await app.waitFor("ada", "offline")
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
            try await Task.sleep(for: .milliseconds(300))
            #expect(try await app.entry("ada") == nil)
        }
    }
}
