import Foundation
import HearthTestSupport
import Testing

@testable import HearthChat

/// The shipped rules of `contacts/$uid/$contactUid` on a real server, by REST and by
/// WebSocket: the same table of reads and writes, each way starting from the same lists
/// (rules/tests/database.rules.test.json has a case for every rule; this is the server
/// enforcing them).
@Suite(.timeLimit(.minutes(3))) struct ContactRulesTests {
    /// One step: `who` reads (body nil) or writes `body` at `path` (`{alice}` and the like are
    /// uids), allowed or not.
    struct Step: Sendable {
        let who: String?
        let path: String
        let body: String?
        let allowed: Bool
        let what: String

        init(_ who: String?, _ path: String, _ body: String?, _ allowed: Bool, _ what: String) {
            (self.who, self.path, self.body, self.allowed, self.what) = (who, path, body, allowed, what)
        }
    }

    static let added = #"{"addedAt":{".sv":"timestamp"},"favorite":false}"#
    static let noted = #"{"addedAt":{".sv":"timestamp"},"favorite":false,"note":"x"}"#

    static let steps: [Step] = [
        Step("Alice", "/contacts/{alice}", nil, true, "reading one's own list"),
        Step("Bob", "/contacts/{alice}", nil, false, "reading another's list"),
        Step("Bob", "/contacts/{alice}/{carol}", nil, false, "reading another's entry"),
        Step(nil, "/contacts/{alice}", nil, false, "reading signed out"),
        Step("Alice", "/contacts", nil, false, "listing every list"),
        Step("Alice", "/contacts/{alice}/{bob}", added, true, "adding a registered user"),
        Step("Alice", "/contacts/{alice}/{bare}", added, false, "adding an account without a profile"),
        Step("Alice", "/contacts/{alice}/nobody", added, false, "adding a uid nobody has"),
        Step("Alice", "/contacts/{alice}/{alice}", added, false, "adding oneself"),
        Step("Alice", "/contacts/{bob}/{alice}", added, false, "adding to another's list"),
        Step(nil, "/contacts/{alice}/{dave}", added, false, "adding signed out"),
        Step("Alice", "/contacts/{alice}/{carol}/favorite", "true", true, "marking a favorite"),
        Step("Alice", "/contacts/{alice}/{carol}/favorite", #""yes""#, false, "a favorite that is not a boolean"),
        Step("Alice", "/contacts/{alice}/{carol}/addedAt", #"{".sv":"timestamp"}"#, false, "moving addedAt"),
        Step("Alice", "/contacts/{alice}/{dave}", #"{"addedAt":5,"favorite":false}"#, false, "an old addedAt"),
        Step("Alice", "/contacts/{alice}/{dave}", #"{"addedAt":{".sv":"timestamp"}}"#, false, "no favorite"),
        Step("Alice", "/contacts/{alice}/{dave}", #"{"favorite":false}"#, false, "no addedAt"),
        Step("Alice", "/contacts/{alice}/{dave}", noted, false, "another field"),
        Step("Alice", "/contacts/{alice}/{dave}", "true", false, "an entry that is not an object"),
        Step("Bob", "/contacts/{alice}/{carol}", "null", false, "deleting another's entry"),
        Step("Alice", "/contacts/{alice}/{carol}", "null", true, "deleting one's own entry"),
    ]

    /// Alice starts with Carol (not a favorite, added at 1) in her list.
    static func reset(_ chat: ChatServer) async throws {
        try await chat.server.put(
            "/contacts",
            #"{"\#(chat.uid("Alice"))":{"\#(chat.uid("Carol"))":{"addedAt":1,"favorite":false}}}"#
        )
    }

    static func resolve(_ path: String, _ chat: ChatServer, bare: String) -> String {
        var path = path.replacingOccurrences(of: "{bare}", with: bare)
        for name in ["Alice", "Bob", "Carol", "Dave"] {
            path = path.replacingOccurrences(of: "{\(name.lowercased())}", with: chat.uid(name))
        }
        return path
    }

    /// What both ways leave: Bob added at a server time, Carol deleted.
    static func expectFinalLists(_ chat: ChatServer, way: String) async throws {
        let list = try await chat.object("/contacts/\(chat.uid("Alice"))")
        #expect(list.keys.sorted() == [chat.uid("Bob")], "\(way)")
        let bob = try #require(list[chat.uid("Bob")] as? [String: Any])
        #expect((bob["addedAt"] as? Double ?? 0) > 1_700_000_000_000, "\(way)")
        #expect(bob["favorite"] as? Bool == false, "\(way)")
        #expect(try await chat.server.get("/contacts/\(chat.uid("Bob"))") == "null", "\(way)")
    }

    @Test func everyContactsRuleHoldsByREST() async throws {
        try await ChatServer.withShippedFriends { chat in
            let bare = try await chat.accounts.signUp("bare@example.com").string("localId")
            try await Self.reset(chat)
            for step in Self.steps {
                let path = Self.resolve(step.path, chat, bare: bare)
                let auth = step.who.map { "?auth=\(chat.users[$0]!.token)" } ?? ""
                let reply =
                    if let body = step.body {
                        try await chat.server.send("PUT", "\(path).json\(auth)", text: body)
                    } else {
                        try await chat.server.send("GET", "\(path).json\(auth)")
                    }
                #expect(reply.status == (step.allowed ? 200 : 401), "\(step.what): \(reply.body)")
                if !step.allowed { #expect(reply.body.contains("Permission denied"), "\(step.what): \(reply.body)") }
            }
            try await Self.expectFinalLists(chat, way: "REST")
        }
    }

    @Test func everyContactsRuleHoldsByWebSocket() async throws {
        try await ChatServer.withShippedFriends { chat in
            let bare = try await chat.accounts.signUp("bare@example.com").string("localId")
            try await Self.reset(chat)
            var views: [String: LiveView] = [:]
            for name in ["Alice", "Bob"] { views[name] = try await LiveView.open(chat, as: name) }
            let signedOut = try await RealtimeTestClient.connect(port: chat.server.port)
            for step in Self.steps {
                let path = Self.resolve(step.path, chat, bare: bare)
                let status: String?
                if let who = step.who, let view = views[who] {
                    status =
                        if let body = step.body { try await view.put(path, body) } else {
                            try await view.askToListen(path)
                        }
                } else {
                    let action = step.body == nil ? "q" : "p"
                    let body = step.body.map { #"{"p":"\#(path)","d":\#($0)}"# } ?? #"{"p":"\#(path)","h":""}"#
                    status = try await signedOut.response(to: signedOut.request(action, body)).body["s"] as? String
                }
                #expect(status == (step.allowed ? "ok" : "permission_denied"), "\(step.what): \(status ?? "nothing")")
            }
            try await Self.expectFinalLists(chat, way: "WebSocket")
            for view in views.values { await view.close() }
            await signedOut.close()
        }
    }
}
