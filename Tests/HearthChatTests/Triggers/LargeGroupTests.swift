import HearthCore
import HearthStore
import Synchronization
import Testing

/// A group of 500 members: one message commits with every member's counters, in one commit.
@Suite(.timeLimit(.minutes(3))) struct LargeGroupTests {
    static let size = 500

    @Test func oneMessageCommitsAllFiveHundredMembersCountersAtOnce() async throws {
        let chat = try ChatStore()
        defer { chat.destroy() }
        let uids = (0..<Self.size).map { "u\($0)" }
        let members = uids.map { #""\#($0)":{"role":"member","joinedAt":1}"# }.joined(separator: ",")
        let entries = uids.map { #""\#($0)":{"big":{"unread":0,"name":"Big"}}"# }.joined(separator: ",")
        try await chat.set(
            "/",
            #"{"chats":{"big":{"type":"group","name":"Big"}},"members":{"big":{\#(members)}},"userChats":{\#(entries)}}"#
        )
        let commits = Mutex<[CommittedWrite]>([])
        chat.ns.observeCommits { commit in commits.withLock { $0.append(commit) } }
        try await chat.send("m1", in: "big", from: "u7")
        let seen = commits.withLock { $0 }
        #expect(seen.count == 1)
        if case .update(let values)? = seen.first?.kind {
            // The message, 499 × (unread, total), 500 × lastMessageAt, lastMessage.
            let expected = 1 + (Self.size - 1) * 2 + Self.size + 1
            #expect(values.count == expected)
        } else {
            Issue.record("expected one update commit, got \(seen)")
        }
        for uid in ["u0", "u1", "u250", "u499"] {
            #expect(try await chat.json("/userChats/\(uid)/big/unread") == "1")
            #expect(try await chat.json("/unreadTotals/\(uid)") == "1")
        }
        #expect(try await chat.json("/userChats/u7/big/unread") == "0")
        #expect(try await chat.json("/unreadTotals/u7") == "null")
        let totals = try await chat.ns.read { reader -> Double in
            guard case .children(let children, _)? = reader.node(at: try DataPath.parse("/unreadTotals")) else {
                return -1
            }
            return children.nodes.reduce(0) { sum, node in
                if case .leaf(.number(let n), _) = node { return sum + n }
                return sum
            }
        }
        #expect(totals == Double(Self.size - 1))
    }
}
