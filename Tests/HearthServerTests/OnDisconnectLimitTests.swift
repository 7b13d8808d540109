import Foundation
import HearthTestSupport
import Testing

/// A connection holds at most `maxOnDisconnectOperations` onDisconnect operations; one more is
/// answered `failure` (the connection stays open) and a cancel makes room again.
struct OnDisconnectLimitTests {
    @Test func oneOperationPastTheCapIsRefusedAndTheOthersStillRun() async throws {
        try await TestServer.with(prepare: { configuration, _ in
            configuration.realtime.maxOnDisconnectOperations = 3
        }) { server in
            let client = try await RealtimeTestClient.connect(port: server.port)
            try await client.authenticateAsAdmin()
            for index in 0..<3 {
                let reply = try await client.response(to: client.request("o", #"{"p":"/left/k\#(index)","d":true}"#))
                #expect(reply.body["s"] as? String == "ok")
            }
            let refused = try await client.response(to: client.request("om", #"{"p":"/left","d":{"k3":true}}"#))
            #expect(refused.body["s"] as? String == "failure")
            #expect(
                refused.body["d"] as? String
                    == "Too many onDisconnect operations on this connection: at most 3 may be registered; "
                    + "cancel some (onDisconnect().cancel()) before registering more."
            )
            // A cancel makes room; the connection was never dropped.
            #expect(
                try await client.response(to: client.request("oc", #"{"p":"/left/k0","d":null}"#)).body["s"] as? String
                    == "ok"
            )
            let again = try await client.response(to: client.request("o", #"{"p":"/left/k4","d":true}"#))
            #expect(again.body["s"] as? String == "ok")
            await client.close()
            try await eventually { try await server.get("/left") == #"{"k1":true,"k2":true,"k4":true}"# }
        }
    }

    @Test func theCapIsPerConnection() async throws {
        try await TestServer.with(prepare: { configuration, _ in
            configuration.realtime.maxOnDisconnectOperations = 1
        }) { server in
            let ada = try await RealtimeTestClient.connect(port: server.port)
            let bob = try await RealtimeTestClient.connect(port: server.port)
            try await ada.authenticateAsAdmin()
            try await bob.authenticateAsAdmin()
            #expect(try await ada.response(to: ada.request("o", #"{"p":"/ada","d":1}"#)).body["s"] as? String == "ok")
            #expect(try await bob.response(to: bob.request("o", #"{"p":"/bob","d":1}"#)).body["s"] as? String == "ok")
            #expect(
                try await ada.response(to: ada.request("o", #"{"p":"/ada2","d":1}"#)).body["s"] as? String == "failure"
            )
            await ada.close()
            await bob.close()
            try await eventually { try await server.get("/") == #"{"ada":1,"bob":1}"# }
        }
    }
}
