import Foundation
import HearthTestSupport
import Synchronization
import Testing

/// The chat app's message trigger under `kill -9`: several senders post into a group and a
/// private chat (two by server push ids, two by their own ids, out of key order), the server is
/// killed mid-burst, and afterwards every counter, `lastMessage` and `lastMessageAt` agrees
/// with the messages that survived (`hearth chat check`, and each member's unread recounted
/// here).
@Suite("chat counters under kill -9", .serialized)
struct ChatCrashTests {
    final class Count: Sendable {
        private let value = Mutex(0)
        var current: Int { value.withLock { $0 } }
        func add() { value.withLock { $0 += 1 } }
    }

    static let seed = #"""
        {"chats": {"g1": {"type": "group", "name": "Crew"}, "p1": {"type": "private"}},
         "members": {"g1": {"u0": {"role": "owner"}, "u1": {"role": "member"}, "u2": {"role": "member"},
                            "u3": {"role": "member"}},
                     "p1": {"u0": {"role": "member"}, "u1": {"role": "member"}}},
         "userChats": {"u0": {"g1": {"unread": 0, "name": "Crew"}, "p1": {"unread": 0, "name": "U1"}},
                       "u1": {"g1": {"unread": 0, "name": "Crew"}, "p1": {"unread": 0, "name": "U0"}},
                       "u2": {"g1": {"unread": 0, "name": "Crew"}}, "u3": {"g1": {"unread": 0, "name": "Crew"}}}}
        """#

    static func start(data: URL, directory: URL) async throws -> ProcessTestServer {
        let port = try FreePort.find()
        return try await ProcessTestServer.launch(
            ["--port", "\(port)", "--data", data.path, "--admin-secret", "test-admin-secret", "--chat-ns", "default"],
            environment: [:],
            workingDirectory: directory,
            port: port,
            dataDirectory: data,
            adminSecret: "test-admin-secret",
            executable: TriggerDurabilityTests.binary
        )
    }

    @Test func countersAgreeWithTheMessagesThatSurvivedAKill9() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let data = directory.appending("data")
        let server = try await Self.start(data: data, directory: directory.url)
        let seeded = try await server.request("PUT", "/.json", body: Self.seed, admin: true)
        #expect(seeded.status == 200)
        let acknowledged = Count()
        let target = 200
        try await withThrowingTaskGroup(of: Void.self) { group in
            for sender in 0..<4 {
                group.addTask {
                    var index = 0
                    while true {
                        // u0 and u1 also talk privately; everyone posts into the group.
                        let chat = sender < 2 && index % 3 == 0 ? "p1" : "g1"
                        let message =
                            #"{"sender":"u\#(sender)","kind":"text","text":"n\#(index)","sentAt":{".sv":"timestamp"}}"#
                        // u2 and u3 name their messages as clients do, by ids that interleave
                        // (and sort after the server's push ids): many arrive older than the
                        // newest, some while a newer one is staged in the same round.
                        let (method, path) =
                            sender < 2
                            ? ("POST", "/messages/\(chat).json")
                            : ("PUT", "/messages/\(chat)/s\(String(format: "%06d", index))c\(sender).json")
                        let response: ProcessTestServer.Response
                        do {
                            response = try await server.request(
                                method,
                                path,
                                body: message,
                                admin: true,
                                timeout: .seconds(10)
                            )
                        } catch {
                            return  // the server is gone
                        }
                        guard response.status == 200 else { return }
                        acknowledged.add()
                        index += 1
                    }
                }
            }
            group.addTask {
                let deadline = ContinuousClock.now + .seconds(90)
                while acknowledged.current < target && ContinuousClock.now < deadline {
                    try await Task.sleep(for: .milliseconds(5))
                }
                server.child.send(SIGKILL)
            }
            try await group.waitForAll()
        }
        _ = try await server.child.wait(timeout: .seconds(30))
        #expect(server.child.process.terminationReason == .uncaughtSignal)
        try? await server.client.shutdown()

        let check = try await HearthProcess.run(["chat", "check", "--data", data.path], directory: directory.url)
        #expect(check.status == 0, "stdout: \(check.stdout) stderr: \(check.stderr)")
        #expect(check.stdout.contains("2 chats, 4 users: no disagreement"), "\(check.stdout)")

        // Nobody read and nothing was deleted: each unread is the number of surviving messages
        // from the others, and at least every acknowledged message survived.
        let exported = try await HearthProcess.run(["export", "--data", data.path], directory: directory.url)
        let root = try JSONSerialization.jsonObject(with: Data(exported.stdout.utf8)) as? [String: Any] ?? [:]
        let messages = root["messages"] as? [String: [String: [String: Any]]] ?? [:]
        let userChats = root["userChats"] as? [String: [String: [String: Any]]] ?? [:]
        let stored = messages.values.reduce(0) { $0 + $1.count }
        #expect(stored >= acknowledged.current)
        for (chat, members) in [("g1", ["u0", "u1", "u2", "u3"]), ("p1", ["u0", "u1"])] {
            for member in members {
                let fromOthers = (messages[chat] ?? [:]).values.filter { $0["sender"] as? String != member }.count
                let unread = (userChats[member]?[chat]?["unread"] as? NSNumber)?.intValue
                #expect(unread == fromOthers, "\(member) in \(chat): unread \(unread ?? -1), \(fromOthers) messages")
            }
        }
    }
}
