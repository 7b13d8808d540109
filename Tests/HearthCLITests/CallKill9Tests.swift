import Foundation
import HearthTestSupport
import Testing

/// A ringing call survives `kill -9` of `hearth serve`, and the next start marks it `missed`
/// at once when its ring timeout passed while the server was down (the missed-call timer keeps
/// nothing in memory: the tree says what rings). The first process rings for a minute, so however
/// loaded the box it is killed before the call is due; the second is started with a one-second
/// ring timeout, which the call is past by then.
@Suite("calls under kill -9", .serialized)
struct CallKill9Tests {
    @Test func aCallRingingAtKill9IsMissedAtTheNextStartOnceOverdue() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let data = directory.appending("data")
        let firstTimeout = Duration.seconds(60)
        let first = try await ProcessTestServer.start(
            dataDirectory: data,
            workingDirectory: directory.url,
            arguments: ["--jwt-secret", TestServer.jwtSecret, "--call-ring-timeout", "60"]
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
        try #require(ContinuousClock.now - started < firstTimeout, "the first process killed before the call was due")
        // Past the second process's ring timeout of one second.
        try await Task.sleep(until: started + .milliseconds(1_500))

        let restarted = Date().timeIntervalSince1970 * 1000
        let second = try await ProcessTestServer.start(
            dataDirectory: data,
            workingDirectory: directory.url,
            arguments: ["--jwt-secret", TestServer.jwtSecret, "--call-ring-timeout", "1"]
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
