import Foundation
import HearthCore
import HearthTestSupport
import Testing

/// The chat app end to end (issue 15): one story over one real server with the shipped rules,
/// the callables and the message trigger, told by users who signed up through `accounts:signUp`
/// and act only as clients do, with their ID tokens: callables, REST pushes, and real
/// WebSockets that listen to their own chat lists and unread totals. Every step checks the
/// state it leaves (admin reads) and what the listeners were told.
@Suite(.timeLimit(.minutes(3))) struct ChatScenarioTests {
    @Test func threeFriendsChatFromTheirFirstPrivateChatToTheLastOneLeavingTheGroup() async throws {
        try await ChatServer.withShippedApp(users: ChatScenario.people) { chat in
            var scenario = ChatScenario(chat: chat)
            do {
                try await scenario.contactsInMixedFormatsFindTheirFriends()
                try await scenario.concurrentCreateChatCallsMakeOnePrivateChat()
                try await scenario.refusedGroupsWriteNothing()
                try await scenario.groupMessagesReachTheOtherMembersListeners()
                try await scenario.markReadZeroesTheCountAndLeavesAReceiptForMembersOnly()
                try await scenario.aDeletedMessageIsGoneForEveryone()
                try await scenario.theOwnerLeavesAndTheLastOneOutDeletesTheGroup()
                try await scenario.aPrivateChatDeletedForEveryoneLeavesNothing()
            } catch {
                await scenario.close()
                throw error
            }
            await scenario.close()
        }
    }
}

/// The story's state: the chats made so far and each user's live view.
struct ChatScenario {
    /// Alice, Bob and Carol chat; Dave, also signed up, is the outsider. Profiles carry E.164
    /// numbers (the profile rule requires E.164).
    static let people = [
        (name: "Alice", phoneNumber: "+14155550123"), (name: "Bob", phoneNumber: "+447700900123"),
        (name: "Carol", phoneNumber: "+390612345678"), (name: "Dave", phoneNumber: "+5491123456789"),
    ]

    let chat: ChatServer
    var direct = ""
    var group = ""
    var views: [String: LiveView] = [:]

    init(chat: ChatServer) { self.chat = chat }

    func uid(_ name: String) -> String { chat.uid(name) }

    func view(_ name: String) -> LiveView { views[name]! }

    func close() async {
        for view in views.values { await view.close() }
    }

    /// 1. Alice and Bob open their private chat at the same moment, 8 times each: one chat,
    /// one entry on each list, named after the other party, the other party's a request.
    mutating func concurrentCreateChatCallsMakeOnePrivateChat() async throws {
        let (alice, bob, chat) = (uid("Alice"), uid("Bob"), self.chat)
        // The profiles each user wrote: any signed-in user reads one by uid; nobody lists them.
        let profile = try await chat.read("/users/\(alice)", as: "Bob")
        let fields = try JSONSerialization.jsonObject(with: Data(profile.body.utf8)) as? [String: Any]
        #expect(fields?["phoneNumber"] as? String == "+14155550123", "\(profile.body)")
        #expect(fields?["createdAt"] is Double, "\(profile.body)")
        #expect(try await chat.read("/users", as: "Bob").status == 401)

        let ids = try await withThrowingTaskGroup(of: String.self) { tasks in
            for n in 0..<16 {
                let (caller, other) = n % 2 == 0 ? ("Alice", bob) : ("Bob", alice)
                tasks.addTask {
                    let reply = try await chat.call("createChat", as: caller, data: #"{"participant":"\#(other)"}"#)
                    return try ChatServer.chatID(reply)
                }
            }
            return try await tasks.reduce(into: [String]()) { $0.append($1) }
        }
        #expect(ids.count == 16)
        #expect(Set(ids).count == 1, "every createChat answer names the same chat: \(Set(ids))")
        direct = try #require(ids.first)
        #expect(try await chat.object("/chats").keys.sorted() == [direct])
        #expect(try await chat.object("/chats/\(direct)")["type"] as? String == "private")
        #expect(Set(try await chat.object("/members/\(direct)").keys) == [alice, bob])
        // Strangers: the party whose call did not create the chat has a conversation request.
        let owner = try #require(try await chat.object("/chats/\(direct)")["owner"] as? String)
        for (name, other) in [("Alice", "Bob"), ("Bob", "Alice")] {
            let list = try await chat.object("/userChats/\(uid(name))")
            let request = uid(name) == owner ? "" : #""request":true,"#
            #expect(
                canonicalJSON(list) == #"{"\#(direct)":{"name":"\#(other)",\#(request)"unread":0}}"#,
                "\(name)'s list"
            )
        }
        #expect(try await chat.server.get("/userChats/\(uid("Carol"))") == "null")
    }

    /// 2. Groups createGroup refuses: each answer names the field, and nothing is written.
    func refusedGroupsWriteNothing() async throws {
        let (bob, carol) = (uid("Bob"), uid("Carol"))
        let bobAndCarol = #""participants":["\#(bob)","\#(carol)"]"#
        let tooLong = String(repeating: "x", count: 26)
        try await chat.expectRefusals(
            "createGroup",
            [
                (
                    "Alice", #"{"name":"\#(tooLong)",\#(bobAndCarol)}"#, 400, "INVALID_ARGUMENT",
                    "'name' must be 1 to 25 characters after trimming; '\(tooLong)' has 26"
                ),
                (
                    "Alice", #"{"name":" \t\n ",\#(bobAndCarol)}"#, 400, "INVALID_ARGUMENT",
                    "'name' must be 1 to 25 characters after trimming; '' has 0"
                ),
                (
                    "Alice", #"{"name":"Hikers","participants":["\#(bob)"]}"#, 400, "INVALID_ARGUMENT",
                    "'participants' must name at least 2 other registered users besides the caller; it names 1"
                ),
                (
                    "Alice", #"{"name":"Hikers","participants":["\#(bob)","\#(uid("Alice"))"]}"#, 400,
                    "INVALID_ARGUMENT", "it names 1"
                ),
                (
                    "Alice", #"{"name":"Hikers","participants":["\#(bob)","nobody"]}"#, 404, "NOT_FOUND",
                    "'participants' names 'nobody', which is not a registered user"
                ),
            ]
        )
        #expect(try await chat.object("/chats").keys.sorted() == [direct])
        #expect(try await chat.object("/members").keys.sorted() == [direct])
        for name in ["Alice", "Bob", "Carol"] {
            let list = try await chat.object("/userChats/\(uid(name))")
            #expect(list.keys.sorted() == (name == "Carol" ? [] : [direct]), "\(name)'s list")
        }
    }

    /// 3. Alice's group: 3 messages by REST push and 2 over her WebSocket reach Bob's and
    /// Carol's listeners as unread counts and totals; Alice's own count stays 0 while her
    /// `lastMessageAt` moves; `lastMessage` is the newest message.
    mutating func groupMessagesReachTheOtherMembersListeners() async throws {
        group = try await chat.group("Hikers", with: ["Bob", "Carol"])
        for name in ["Alice", "Bob", "Carol"] {
            let view = try await LiveView.open(chat, as: name)
            views[name] = view
            try await view.listen("/userChats/\(uid(name))")
            try await view.listen("/unreadTotals/\(uid(name))")
            let entry = "userChats/\(uid(name))/\(group)"
            try await view.waitUntil("the new group") {
                $0.value("\(entry)/name") as? String == "Hikers" && $0.number("\(entry)/unread") == 0
            }
        }
        try await view("Bob").listen("/messages/\(group)")
        // Nobody else may listen to the group's messages, or to another user's list.
        #expect(try await LiveView.listenStatus(chat, as: "Dave", "/messages/\(group)") == "permission_denied")
        #expect(try await LiveView.listenStatus(chat, as: "Carol", "/userChats/\(uid("Bob"))") == "permission_denied")

        for n in 1...3 { _ = try await chat.post("by REST \(n)", as: "Alice", in: group) }
        let pushIDs = PushIDGenerator()
        for n in 1...2 {
            let path = "/messages/\(group)/\(pushIDs.next())"
            let status = try await view("Alice").put(path, ChatServer.message("by WebSocket \(n)", from: uid("Alice")))
            #expect(status == "ok", "Alice's WebSocket message \(n)")
        }
        for name in ["Bob", "Carol"] {
            try await view(name).waitUntil("5 unread in the group, 5 in all") {
                $0.number("userChats/\(uid(name))/\(group)/unread") == 5 && $0.number("unreadTotals/\(uid(name))") == 5
            }
        }
        try await view("Bob").waitUntil("the 5 messages") {
            ($0.value("messages/\(group)") as? [String: Any])?.count == 5
        }

        let messages = try await chat.object("/messages/\(group)")
        #expect(messages.count == 5)
        #expect(messages.values.allSatisfy { ($0 as? [String: Any])?["sender"] as? String == uid("Alice") })
        let newestID = try #require(messages.keys.max())
        let newest = try #require(messages[newestID] as? [String: Any])
        let sentAt = try #require(newest["sentAt"] as? Double)
        let lastMessage = try await chat.object("/chats/\(group)/lastMessage")
        #expect(lastMessage["id"] as? String == newestID)
        #expect(lastMessage["text"] as? String == newest["text"] as? String)
        #expect(lastMessage["sender"] as? String == uid("Alice"))
        #expect(lastMessage["sentAt"] as? Double == sentAt)
        // Alice's own entry: its time moves with her messages, its count does not.
        let aliceEntry = "userChats/\(uid("Alice"))/\(group)"
        try await view("Alice").waitUntil("her group's lastMessageAt at the newest message") {
            $0.number("\(aliceEntry)/lastMessageAt") == sentAt
        }
        #expect(view("Alice").number("\(aliceEntry)/unread") == 0)
        #expect(view("Alice").number("unreadTotals/\(uid("Alice"))") ?? 0 == 0)
        #expect(try await chat.number("/\(aliceEntry)/unread") == 0)
        #expect(try await chat.number("/unreadTotals/\(uid("Alice"))") ?? 0 == 0)
        for name in ["Bob", "Carol"] {
            #expect(try await chat.number("/userChats/\(uid(name))/\(group)/lastMessageAt") == sentAt)
            #expect(try await chat.number("/unreadTotals/\(uid(name))") == 5)
        }
    }
}
