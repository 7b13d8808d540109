import Foundation
import HearthTestSupport
import Testing

@testable import HearthChat

extension ChatServer {
    /// Sets `name`'s display name (admin write).
    func rename(_ name: String, to displayName: String) async throws {
        try await server.put("/users/\(uid(name))/displayName", #""\#(displayName)""#)
    }

    /// The users and `next` of a successful searchUsers reply.
    static func page(_ reply: TestServer.Reply) throws -> (users: [[String: Any]], next: String?) {
        let object = try JSONSerialization.jsonObject(with: Data(reply.body.utf8)) as? [String: Any]
        guard reply.status == 200, let result = object?["result"] as? [String: Any],
            let users = result["users"] as? [[String: Any]], result.keys.contains("next")
        else { throw TestFailure("no page: \(reply.status) \(reply.body)") }
        return (users, result["next"] as? String)
    }

    /// The display names `query` finds for `caller`, every page of `limit` followed.
    func search(_ query: String, as caller: String, limit: Int = 20) async throws -> [String] {
        var names: [String] = []
        var cursor: String? = nil
        for _ in 0..<100 {
            let after = cursor.map { #","startAfter":"\#($0)""# } ?? ""
            let page = try ChatServer.page(
                try await call("searchUsers", as: caller, data: #"{"query":"\#(query)","limit":\#(limit)\#(after)}"#)
            )
            names += page.users.map { $0["displayName"] as? String ?? "?" }
            guard let next = page.next else { return names }
            cursor = next
        }
        throw TestFailure("more than 100 pages")
    }
}

@Suite(.timeLimit(.minutes(3))) struct SearchUsersTests {
    static let people = ["Ann", "Ben", "Cat", "Dan", "Eve", "Fay", "Gus"]

    @Test func theStartOfAnyWordMatchesCaseInsensitively() async throws {
        try await ChatServer.with(users: Self.people) { chat in
            try await chat.rename("Ann", to: "Ann Smith")
            try await chat.rename("Ben", to: "Benjamin SMITHERS")
            try await chat.rename("Cat", to: "Jean-Luc Picard")
            try await chat.rename("Dan", to: "Dan Blacksmith")
            #expect(Set(try await chat.search("smi", as: "Eve")) == ["Ann Smith", "Benjamin SMITHERS"])
            #expect(try await chat.search("SMITHERS", as: "Eve") == ["Benjamin SMITHERS"])
            // Punctuation splits words; every word of the query must start a word.
            #expect(try await chat.search("luc", as: "Eve") == ["Jean-Luc Picard"])
            #expect(try await chat.search("smi an", as: "Eve") == ["Ann Smith"])
            #expect(try await chat.search("smi zz", as: "Eve") == [])
            // The caller is not listed; the middle of a word does not match.
            #expect(try await chat.search("smi", as: "Ann") == ["Benjamin SMITHERS"])
            #expect(try await chat.search("mith", as: "Eve") == [])
            // A renamed user is found by the new name only.
            try await chat.rename("Ann", to: "Ann Jones")
            #expect(try await chat.search("smi", as: "Eve") == ["Benjamin SMITHERS"])
            // Entries carry only uid, displayName, photoUrl and status.
            try await chat.server.put("/users/\(chat.uid("Ben"))/phoneNumber", #""+14155550100""#)
            try await chat.server.put("/users/\(chat.uid("Ben"))/status", #""around""#)
            let page = try ChatServer.page(try await chat.call("searchUsers", as: "Eve", data: #"{"query":"benj"}"#))
            #expect(page.users.count == 1)
            #expect(Set(page.users[0].keys) == ["uid", "displayName", "status"])
            #expect(page.users[0]["uid"] as? String == chat.uid("Ben"))
            #expect(page.next == nil)
        }
    }

    @Test func pagesListEachUserOnceAndEndWithNull() async throws {
        try await ChatServer.with(users: Self.people) { chat in
            let names = [
                "Ann": "Anna Andersen", "Ben": "Andy Bell", "Cat": "Cat Anders", "Dan": "Dana Anand",
                "Eve": "Eve Ant", "Fay": "Fay Zed",
            ]
            for (person, name) in names { try await chat.rename(person, to: name) }
            // A profile without an account is not a registered user.
            try await chat.server.put("/users/ghost", #"{"displayName":"Andrew Ghost","createdAt":1}"#)
            let all = try await chat.search("an", as: "Gus", limit: 50)
            #expect(all.sorted() == ["Andy Bell", "Anna Andersen", "Cat Anders", "Dana Anand", "Eve Ant"])
            for limit in [1, 2, 3] {
                let paged = try await chat.search("an", as: "Gus", limit: limit)
                #expect(paged == all, "limit \(limit)")
            }
            // Two words: scanned by the rarer one ("dana": one entry), each word a start.
            #expect(try await chat.search("an dana", as: "Gus") == ["Dana Anand"])
            let both = try await chat.search("an a", as: "Gus", limit: 50)
            #expect(both.sorted() == ["Andy Bell", "Anna Andersen", "Cat Anders", "Dana Anand", "Eve Ant"])
            #expect(try await chat.search("an a", as: "Gus", limit: 1) == both)
        }
    }

    /// The caller's own entry and an unregistered profile's sort after every listed user: the
    /// page holding the last listed user says `next: null` (no empty page after it).
    @Test func theLastPageEndsWithNullWhenOnlyUnlistedEntriesFollow() async throws {
        try await ChatServer.with(users: Self.people) { chat in
            try await chat.rename("Ann", to: "Anna Andersen")
            try await chat.rename("Ben", to: "Andy Bell")
            try await chat.rename("Gus", to: "Gus Anzz")
            try await chat.server.put("/users/ghost", #"{"displayName":"Anzzz Ghost","createdAt":1}"#)
            for limit in [1, 2] {
                var names: [String] = []
                var cursor: String? = nil
                var pages = 0
                repeat {
                    let after = cursor.map { #","startAfter":"\#($0)""# } ?? ""
                    let data = #"{"query":"an","limit":\#(limit)\#(after)}"#
                    let page = try ChatServer.page(try await chat.call("searchUsers", as: "Gus", data: data))
                    pages += 1
                    names += page.users.map { $0["displayName"] as? String ?? "?" }
                    cursor = page.next
                } while cursor != nil && pages < 10
                #expect(names == ["Anna Andersen", "Andy Bell"], "limit \(limit)")
                #expect(pages == 2 / limit, "limit \(limit): \(pages) pages")
            }
        }
    }

    @Test func badInputIsRefusedNamingTheField() async throws {
        try await ChatServer.with(users: ["Ann", "Ben", "Bea"]) { chat in
            let first = try ChatServer.page(
                try await chat.call("searchUsers", as: "Ann", data: #"{"query":"b","limit":1}"#)
            )
            #expect(first.users.count == 1)
            let next = try #require(first.next)
            let cases: [(String, String)] = [
                (#"{}"#, "'query' is required"),
                (#"{"query": 3}"#, "'query' must be a string"),
                (#"{"query": ""}"#, "'query' has no letters or digits"),
                (#"{"query": "  -- "}"#, "'query' has no letters or digits"),
                (#"{"query": "\#(String(repeating: "a", count: 101))"}"#, "'query' is 101 characters long"),
                (#"{"query": "a", "limit": 51}"#, "'limit' must be a whole number from 1 to 50"),
                (#"{"query": "a", "limit": 0}"#, "'limit' must be a whole number"),
                (#"{"query": "a", "limit": 2.5}"#, "'limit' must be a whole number"),
                (#"{"query": "a", "limit": "5"}"#, "'limit' must be a whole number"),
                (#"{"query": "a", "startAfter": "%%%"}"#, "'startAfter' must be the 'next'"),
                (#"{"query": "a", "startAfter": 7}"#, "'startAfter' must be the 'next'"),
                (
                    #"{"query": "zed", "startAfter": "\#(next)"}"#,
                    "'startAfter' is not a 'next' of this query"
                ),
            ]
            for (data, message) in cases {
                let reply = try await chat.call("searchUsers", as: "Ann", data: data)
                #expect(reply.status == 400, "\(data): \(reply.body)")
                let failure = try ChatServer.failure(reply)
                #expect(failure.status == "INVALID_ARGUMENT")
                #expect(failure.message.contains(message), "\(data): \(failure.message)")
            }
            #expect(try await chat.call("searchUsers", as: nil, data: #"{"query":"b"}"#).status == 401)
        }
    }
}
