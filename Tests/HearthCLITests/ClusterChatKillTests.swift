import Foundation
import HearthTestSupport
import Testing

extension ClusterProcessTests {
    /// The chat app on a cluster whose owner of `default` is killed under load (the issue's
    /// test 2): three members post messages to their group through both nodes (the message
    /// triggers run on the owner: unread counters, chat lists, last messages); after the
    /// takeover every acknowledged message is there, and `hearth chat check` finds the
    /// survivor's derived state (counters included) in agreement with its messages.
    @Suite("the chat app when its owner is killed")
    struct ClusterChatKillTests {
        static let shippedRules = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("rules/database.rules.json")

        struct Member: Sendable {
            let uid: String
            let token: String
        }

        static func json(_ answer: ProcessTestServer.Response) -> [String: Any] {
            (try? JSONSerialization.jsonObject(with: Data(answer.body.utf8)) as? [String: Any]) ?? [:]
        }

        @Test func everyAcknowledgedMessageSurvivesAndTheDerivedStateAgrees() async throws {
            let cluster = try await Cluster.start(
                nodes: 2,
                rules: try String(contentsOf: Self.shippedRules, encoding: .utf8)
            )
            defer { Task { await cluster.stop() } }
            let entry = cluster.nodes[0]
            var members: [Member] = []
            for number in 0..<3 {
                let answer = try await entry.request(
                    "POST",
                    "/identitytoolkit.googleapis.com/v1/accounts:signUp?key=k",
                    body: #"{"returnSecureToken":true}"#
                )
                let body = Self.json(answer)
                let member = Member(
                    uid: try #require(body["localId"] as? String),
                    token: try #require(body["idToken"] as? String)
                )
                let profile = try await entry.request(
                    "PUT",
                    "/users/\(member.uid).json?auth=\(member.token)",
                    body: #"{"displayName":"Member \#(number)","createdAt":{".sv":"timestamp"}}"#
                )
                #expect(profile.status == 200, "\(profile.body)")
                members.append(member)
            }
            let created = try await entry.request(
                "POST",
                "/demo-project/us-central1/createGroup",
                body: #"{"data":{"name":"Kill group","participants":["\#(members[1].uid)","\#(members[2].uid)"]}}"#,
                headers: [("Authorization", "Bearer \(members[0].token)")]
            )
            let chat = try #require(((Self.json(created)["result"]) as? [String: Any])?["chatId"] as? String)
            let owner = try await cluster.owner(of: "default")

            let acknowledged = Locked<[String: String]>([:])
            let started = ContinuousClock.now
            await withTaskGroup(of: Void.self) { group in
                for (index, member) in members.enumerated() {
                    group.addTask {
                        var sent = 0
                        while ContinuousClock.now - started < .seconds(5) {
                            sent += 1
                            let text = "m\(index)-\(sent)"
                            let node = cluster.nodes[(index + sent) % 2]
                            let answer = try? await node.request(
                                "POST",
                                "/messages/\(chat).json?auth=\(member.token)",
                                body:
                                    #"{"sender":"\#(member.uid)","text":"\#(text)","kind":"text","sentAt":{".sv":"timestamp"}}"#,
                                timeout: .seconds(5)
                            )
                            if answer?.status == 200, let key = Self.json(answer!)["name"] as? String {
                                acknowledged.withLock { $0[key] = text }
                            }
                        }
                    }
                }
                group.addTask {
                    try? await Task.sleep(for: .seconds(1.5))
                    await cluster.nodes[owner].kill()
                }
            }
            let survivor = cluster.nodes[1 - owner]
            let body = try await ClusterProcessTests.read("/messages/\(chat).json", through: survivor)
            let stored = (try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: [String: Any]]) ?? [:]
            let written = acknowledged.withLock { $0 }
            #expect(written.count >= 6)
            let lost = written.filter { stored[$0.key]?["text"] as? String != $0.value }
            #expect(lost.isEmpty, "acknowledged but not stored: \(lost.count) of \(written.count)")

            // The survivor's copy, checked offline: counters, chat lists, last messages, indexes.
            await survivor.kill()
            let check = try await HearthProcess.run(
                ["chat", "check", "--ns", "default", "--data", survivor.dataDirectory.path, "--log-level", "error"]
            )
            #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
        }
    }
}
