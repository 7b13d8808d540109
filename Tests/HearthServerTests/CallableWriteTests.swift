import Foundation
import HearthServer
import Testing

/// A callable's writes go through the database like any write: one atomic commit, announced
/// to listeners as one push; a conditional write is judged on the namespace's writer.
@Suite struct CallableWriteTests {
    @Test func aCallablesMultiPathWriteIsOneCommitThatReachesAListener() async throws {
        try await CallableEndpointTests.withServer { client in
            let listener = try await RealtimeTestClient.connect(port: client.server.port)
            try await listener.authenticateAsAdmin()
            _ = try await listener.response(to: listener.request("q", #"{"p":"/pairs","h":""}"#))
            let reply = try await client.call("pair", data: #"{"id":"k1","value":{"v":1}}"#)
            #expect(reply.status == 200)
            #expect(JSONCompare.equal(reply.body, #"{"result":{"written":true}}"#))
            // All three paths arrive in one push (one commit), whatever its shape.
            let push = try await listener.nextPush()
            let data = canonicalJSON((push["b"] as? [String: Any])?["d"])
            #expect(data.contains(#""left"#) && data.contains(#""right"#) && data.contains(#""at"#), "push: \(data)")
            let stored = try await client.server.get("/pairs")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(stored.utf8)) as? [String: Any])
            #expect(canonicalJSON(object["left"]) == #"{"k1":{"v":1}}"#)
            #expect(canonicalJSON(object["right"]) == #"{"k1":{"v":1}}"#)
            let at = try #require((object["at"] as? [String: Any])?["k1"] as? Double)
            #expect(abs(at - Date().timeIntervalSince1970 * 1000) < 600_000, "server timestamp \(at)")
            await listener.close()
        }
    }

    /// Many callers race for one slot: the precondition is judged against the state each write
    /// applies to, so exactly one wins and the counter written with it moves once.
    @Test func concurrentConditionalWritesCommitOnce() async throws {
        try await CallableEndpointTests.withServer { client in
            let callers = (0..<24).map { "user\($0)" }
            let outcomes = try await withThrowingTaskGroup(of: (String, String).self) { group in
                for uid in callers {
                    group.addTask {
                        let reply = try await client.call(
                            "claim",
                            data: #"{"slot":"s1"}"#,
                            token: TokenMinter.token(uid: uid)
                        )
                        return (uid, reply.body)
                    }
                }
                var all: [(String, String)] = []
                for try await outcome in group { all.append(outcome) }
                return all
            }
            let winners = outcomes.filter { $0.1.contains(#""won":true"#) }
            #expect(winners.count == 1, "\(outcomes)")
            #expect(outcomes.filter { $0.1.contains(#""won":false"#) }.count == callers.count - 1)
            #expect(try await client.server.get("/claimCount") == "1")
            #expect(try await client.server.get("/claims/s1") == "\"\(winners.first?.0 ?? "-")\"")
        }
    }
}
