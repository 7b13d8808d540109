import Foundation
import HearthTestSupport
import Testing

@testable import HearthChat

extension ChatServer {
    /// Sets (nil: removes) `name`'s phone number in their profile (an admin write: these
    /// servers run without the shipped rules).
    func setPhone(_ name: String, _ number: String?) async throws {
        try await server.put("/users/\(uid(name))/phoneNumber", number.map { #""\#($0)""# } ?? "null")
    }

    /// The `matches` of a successful matchContacts reply: uid → the entry.
    static func matches(_ reply: TestServer.Reply) throws -> [String: [String: Any]] {
        let object = try JSONSerialization.jsonObject(with: Data(reply.body.utf8)) as? [String: Any]
        guard reply.status == 200, let list = (object?["result"] as? [String: Any])?["matches"] as? [[String: Any]]
        else { throw TestFailure("no matches: \(reply.status) \(reply.body)") }
        var byUID: [String: [String: Any]] = [:]
        for entry in list {
            let uid = try #require(entry["uid"] as? String)
            #expect(byUID[uid] == nil, "each user once")
            byUID[uid] = entry
        }
        return byUID
    }

    /// The error status and message of a refused call.
    static func failure(_ reply: TestServer.Reply) throws -> (status: String, message: String) {
        let object = try JSONSerialization.jsonObject(with: Data(reply.body.utf8)) as? [String: Any]
        let error = try #require(object?["error"] as? [String: Any])
        return (try #require(error["status"] as? String), try #require(error["message"] as? String))
    }
}

@Suite(.timeLimit(.minutes(3))) struct MatchContactsTests {
    @Test func numbersInAnyCommonFormatMatchTheirUsers() async throws {
        try await ChatServer.with { chat in
            try await chat.setPhone("Alice", "+14155550100")
            try await chat.setPhone("Bob", "+442079460958")
            try await chat.setPhone("Carol", "+390612345678")
            try await chat.setPhone("Dave", "+14155550199")
            // Alice's own number is in the US: national US numbers are read as such.
            let reply = try await chat.call(
                "matchContacts",
                as: "Alice",
                data: #"""
                    {"phoneNumbers": ["(415) 555-0199", "+44 20 7946 0958", "011 44 20 7946 0958", "+39 06 1234 5678",
                    "011 39 06 1234 5678", "415.555.0100", "not a number", "+1 202 555 0000"]}
                    """#
            )
            let matches = try ChatServer.matches(reply)
            #expect(Set(matches.keys) == [chat.uid("Dave"), chat.uid("Bob"), chat.uid("Carol")])
            let bob = try #require(matches[chat.uid("Bob")])
            #expect(bob["matched"] as? [String] == ["+44 20 7946 0958", "011 44 20 7946 0958"])
            #expect(bob["displayName"] as? String == "Bob")
            #expect(bob["phoneNumber"] as? String == "+442079460958")
            // Only the contract's fields: no e-mail, no createdAt.
            #expect(Set(bob.keys).isSubset(of: ["uid", "displayName", "phoneNumber", "status", "photoUrl", "matched"]))
            #expect(matches[chat.uid("Carol")]?["matched"] as? [String] == ["+39 06 1234 5678", "011 39 06 1234 5678"])
            // A national number with another default region: Italy keeps its leading 0.
            let italian = try await chat.call(
                "matchContacts",
                as: "Bob",
                data: #"{"phoneNumbers": ["06 1234 5678"], "defaultRegion": "IT"}"#
            )
            #expect(try ChatServer.matches(italian).keys.sorted() == [chat.uid("Carol")])
            // From Germany, 00 is the international prefix; a US number keeps its trunk 1 off.
            let german = try await chat.call(
                "matchContacts",
                as: "Carol",
                data: #"{"phoneNumbers": ["0044 20 7946 0958", "00 1 415-555-0100"], "defaultRegion": "de"}"#
            )
            #expect(Set(try ChatServer.matches(german).keys) == [chat.uid("Bob"), chat.uid("Alice")])
        }
    }

    @Test func theCallerAndUnregisteredOrChangedNumbersAreNeverMatched() async throws {
        try await ChatServer.with { chat in
            try await chat.setPhone("Alice", "+14155550100")
            try await chat.setPhone("Bob", "+14155550101")
            let mine = try await chat.call("matchContacts", as: "Alice", data: #"{"phoneNumbers": ["+14155550100"]}"#)
            #expect(try ChatServer.matches(mine).isEmpty)
            // Bob changes his number: the old one finds nobody, the new one him.
            try await chat.setPhone("Bob", "+14155550102")
            let after = try await chat.call(
                "matchContacts",
                as: "Alice",
                data: #"{"phoneNumbers": ["+14155550101", "+14155550102"]}"#
            )
            #expect(try ChatServer.matches(after)[chat.uid("Bob")]?["matched"] as? [String] == ["+14155550102"])
            // A profile without an account (written by the admin) is not a registered user.
            try await chat.server.put(
                "/users/ghost",
                #"{"displayName":"Ghost","createdAt":1,"phoneNumber":"+14155550103"}"#
            )
            let ghost = try await chat.call("matchContacts", as: "Alice", data: #"{"phoneNumbers": ["+14155550103"]}"#)
            #expect(try ChatServer.matches(ghost).isEmpty)
            // A removed number finds nobody.
            try await chat.setPhone("Bob", nil)
            let removed = try await chat.call(
                "matchContacts",
                as: "Alice",
                data: #"{"phoneNumbers": ["+14155550102"]}"#
            )
            #expect(try ChatServer.matches(removed).isEmpty)
        }
    }

    @Test func emailsMatchAccountsCaseInsensitively() async throws {
        try await ChatServer.with { chat in
            let reply = try await chat.call(
                "matchContacts",
                as: "Alice",
                data:
                    #"{"phoneNumbers": [], "emails": ["  BOB@Example.com ", "carol@example.com", "alice@example.com", "x"]}"#
            )
            let matches = try ChatServer.matches(reply)
            #expect(Set(matches.keys) == [chat.uid("Bob"), chat.uid("Carol")])
            #expect(matches[chat.uid("Bob")]?["matched"] as? [String] == ["  BOB@Example.com "])
            // A profile claiming someone else's address is not found by it.
            try await chat.server.put("/users/\(chat.uid("Dave"))/email", #""eve@example.com""#)
            let claimed = try await chat.call("matchContacts", as: "Alice", data: #"{"emails": ["eve@example.com"]}"#)
            #expect(try ChatServer.matches(claimed).isEmpty)
        }
    }

    @Test func badInputIsRefusedNamingTheField() async throws {
        try await ChatServer.with { chat in
            let cases: [(String, String)] = [
                (#"{}"#, "'phoneNumbers' is required"),
                (#"{"phoneNumbers": "+14155550100"}"#, "'phoneNumbers' must be an array"),
                (#"{"phoneNumbers": ["+1", 5]}"#, "'phoneNumbers[1]' must be a string"),
                (#"{"phoneNumbers": [], "emails": [null]}"#, "'emails[0]' must be a string"),
                (#"{"phoneNumbers": [], "defaultRegion": "XX"}"#, "'defaultRegion' is 'XX'"),
                (#"{"phoneNumbers": [], "defaultRegion": 1}"#, "'defaultRegion' must be a region code"),
                (
                    #"{"phoneNumbers": [\#(Array(repeating: #""1""#, count: 600).joined(separator: ","))], "emails": [\#(Array(repeating: #""a@b.c""#, count: 401).joined(separator: ","))]}"#,
                    "hold 1001 entries together; the limit is 1000"
                ),
            ]
            for (data, message) in cases {
                let reply = try await chat.call("matchContacts", as: "Alice", data: data)
                #expect(reply.status == 400, "\(data)")
                let failure = try ChatServer.failure(reply)
                #expect(failure.status == "INVALID_ARGUMENT")
                #expect(failure.message.contains(message), "\(failure.message)")
            }
            #expect(try await chat.call("matchContacts", as: nil, data: #"{"phoneNumbers": []}"#).status == 401)
        }
    }

    @Test func theQuotaCountsOnlyNewNumbersAndRefusesWithARetryTime() async throws {
        let quota = ContactLookupQuota(limits: .init(capacity: 5, refillPerHour: 1))
        try await ChatServer.with(quota: quota) { chat in
            try await chat.setPhone("Bob", "+14155550101")
            let first = (0..<4).map { #""+1415555020\#($0)""# }.joined(separator: ",")
            #expect(
                try await chat.call("matchContacts", as: "Alice", data: #"{"phoneNumbers": [\#(first)]}"#).status == 200
            )
            // Asked again, in other formats too: free.
            let again = #"["(415) 555-0200", "+1 415 555 0201", "+14155550202", "+14155550203"]"#
            for _ in 0..<3 {
                #expect(
                    try await chat.call("matchContacts", as: "Alice", data: #"{"phoneNumbers": \#(again)}"#).status
                        == 200
                )
            }
            // Two new numbers with one token left: refused whole, with a retry time.
            let refused = try await chat.call(
                "matchContacts",
                as: "Alice",
                data: #"{"phoneNumbers": ["+14155550101", "+14155550299"]}"#
            )
            #expect(refused.status == 429)
            let failure = try ChatServer.failure(refused)
            #expect(failure.status == "RESOURCE_EXHAUSTED")
            #expect(failure.message.contains("try again in"), "\(failure.message)")
            #expect(Int(refused.headers["Retry-After"].first ?? "") ?? 0 >= 1)
            // Nothing was charged: one new number still fits. Another caller has a quota of their own.
            let one = try await chat.call("matchContacts", as: "Alice", data: #"{"phoneNumbers": ["+14155550101"]}"#)
            #expect(try ChatServer.matches(one).keys.sorted() == [chat.uid("Bob")])
            #expect(
                try await chat.call("matchContacts", as: "Carol", data: #"{"phoneNumbers": [\#(first)]}"#).status == 200
            )
        }
    }
}
