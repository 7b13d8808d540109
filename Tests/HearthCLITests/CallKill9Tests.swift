import Foundation
import HearthTestSupport
import Testing

/// A ringing call survives `kill -9` of `hearth serve`, and the next start marks it `missed`
/// at once when its ring timeout passed while the server was down (the missed-call timer keeps
/// nothing in memory: the tree says what rings).
@Suite("calls under kill -9", .serialized)
struct CallKill9Tests {
    @Test func aCallRingingAtKill9IsMissedAtTheNextStartOnceOverdue() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let data = directory.appending("data")
        // Long enough that the first process, however loaded, is killed before the call is due.
        let timeout = Duration.seconds(10)
        let arguments = ["--jwt-secret", TestServer.jwtSecret, "--call-ring-timeout", "10"]
        let first = try await ProcessTestServer.start(
            dataDirectory: data,
            workingDirectory: directory.url,
            arguments: arguments
        )
        let members = #"{"ada":{"role":"owner","joinedAt":1},"bob":{"role":"member","joinedAt":1}}"#
        for (path, body) in [
            ("/chats/c1.json", #"{"type":"private","owner":"ada","createdAt":1}"#), ("/members/c1.json", members),
        ] {
            #expect(try await first.request("PUT", path, body: body, admin: true).status == 200)
        }
        let started = ContinuousClock.now
        let reply = try await first.request(
            "POST",
            "/functions/startCall",
            body: #"{"data":{"chatId":"c1","kind":"audio","offer":"v=0"}}"#,
            headers: [("Authorization", "Bearer \(TokenMinter.token(uid: "ada"))")]
        )
        let result = try JSONSerialization.jsonObject(with: Data(reply.body.utf8)) as? [String: Any]
        let callId = try #require((result?["result"] as? [String: Any])?["callId"] as? String, "\(reply.body)")
        let stateAtKill = try await first.request("GET", "/calls/\(callId)/state.json", admin: true).body
        await first.kill()
        try #require(stateAtKill == #""ringing""#, "the first process killed before the call was due")
        try #require(ContinuousClock.now - started < timeout, "the first process killed before the call was due")
        try await Task.sleep(until: started + timeout + .milliseconds(500))

        let restarted = Date().timeIntervalSince1970 * 1000
        let second = try await ProcessTestServer.start(
            dataDirectory: data,
            workingDirectory: directory.url,
            arguments: arguments
        )
        let state = try await eventually(
            timeout: .seconds(10),
            { try await second.request("GET", "/calls/\(callId)/state.json", admin: true).body }
        ) { $0 == #""missed""# }
        #expect(state == #""missed""#)
        let endedAt = try #require(
            Double(try await second.request("GET", "/calls/\(callId)/endedAt.json", admin: true).body)
        )
        #expect(endedAt >= restarted, "marked by the new process")
        let messages = try await second.request("GET", "/messages/c1.json", admin: true).body
        #expect(messages.contains(#""state":"missed""#) && messages.contains(#""kind":"call""#), "\(messages)")
        #expect(try await second.request("GET", "/ringingCalls.json", admin: true).body == "null")
        _ = try await second.terminate()
    }
}
