import HearthCore
import Testing

@testable import HearthStore

/// A chat message written with its members' counters as one multi-path update (the fan-out
/// write): hot counters incremented again and again, which the writer plans from the leaves it
/// remembers writing (`SubtreeShapes`) and point reads instead of iterators.
@Suite struct FanoutWriteTests {
    /// The update of message `n` in `chat` for `members` members (u1 sends): the message, and per
    /// other member an unread increment, the last message time and a total increment.
    static func message(_ n: Int, chat: Int, members: Int) -> [(String, String)] {
        var entries = [("messages/g\(chat)/m\(n)", #"{"text":"hello","sentAt":\#(n)}"#)]
        for member in 2...members {
            entries.append(("userChats/u\(member)/g\(chat)/unread", #"{".sv":{"increment":1}}"#))
            entries.append(("userChats/u\(member)/g\(chat)/lastMessageAt", "\(n)"))
            entries.append(("unreadTotals/u\(member)", #"{".sv":{"increment":1}}"#))
        }
        return entries
    }

    @Test func repeatedFanoutWritesCountEveryIncrementAcrossWritesAndReopens() async throws {
        let temp = try TemporaryStore()
        defer { temp.destroy() }
        var ns = try temp.store.namespace("default")
        let members = 5
        var sent = 0
        for round in 0..<3 {
            for _ in 0..<10 {
                let result = try await ns.update("chat", Self.message(sent, chat: sent % 4, members: members))
                guard case .committed(_, let values) = result else {
                    Issue.record("not committed")
                    return
                }
                // The resolved total of u2 is the count of messages so far.
                #expect(values[3] == .leaf(.number(Double(sent + 1)), priority: nil))
                sent += 1
            }
            for member in 2...members {
                #expect(try await ns.json("chat/unreadTotals/u\(member)") == "\(sent)")
                var unread = 0
                for chat in 0..<4 {
                    unread += Int(try await ns.json("chat/userChats/u\(member)/g\(chat)/unread")) ?? 0
                }
                #expect(unread == sent)
            }
            #expect(try await ns.json("chat/userChats/u2/g\((sent - 1) % 4)/lastMessageAt") == "\(sent - 1)")
            if round < 2 {
                // A cold writer (nothing remembered) reads the counters from disk.
                try temp.reopen()
                ns = try temp.store.namespace("default")
            }
        }
        #expect(ns.writer.inspect { $0.shapes.count } > 0)
    }

    @Test func severalFanoutWritesInOneRoundAgreeWithOneByOne() async throws {
        let temp = try TemporaryStore()
        defer { temp.destroy() }
        let ns = try temp.store.namespace("default")
        let writes = try (0..<8).map { n in
            Write(
                .update(
                    path("chat"),
                    try Self.message(n, chat: n % 4, members: 3).map {
                        UpdateEntry(path: path($0.0), value: try value($0.1))
                    }
                )
            )
        }
        for result in try await ns.writeInOneRound(writes) {
            guard case .success(.committed) = result else {
                Issue.record("not committed: \(result)")
                return
            }
        }
        #expect(try await ns.json("chat/unreadTotals") == #"{"u2":8,"u3":8}"#)
        #expect(try await ns.json("chat/userChats/u3/g1") == #"{"lastMessageAt":5,"unread":2}"#)
    }

    @Test func anIncrementOfALeafWithAPriorityCountsFromItsValueAndDropsThePriority() async throws {
        let temp = try TemporaryStore()
        defer { temp.destroy() }
        let ns = try temp.store.namespace("default")
        // Set with a priority: the writer remembers the leaf and its priority key.
        try await ns.set("n", #"{".value":5,".priority":1}"#)
        _ = try await ns.update("", [("n", #"{".sv":{"increment":1}}"#)])
        #expect(try await ns.json("", format: .export) == #"{"n":6}"#)
        // A priority written after the leaf: the leaf is no longer known to stand alone.
        _ = try await ns.update("", [("n", #"{".sv":{"increment":1}}"#)])
        try await ns.set("n/.priority", "3")
        #expect(try await ns.json("", format: .export) == #"{"n":{".value":7,".priority":3}}"#)
        _ = try await ns.update("", [("n", #"{".sv":{"increment":1}}"#)])
        #expect(try await ns.json("", format: .export) == #"{"n":8}"#)
    }

    @Test func aRememberedLeafIsForgottenWhenAWriteLandsAboveOrBelowIt() async throws {
        let temp = try TemporaryStore()
        defer { temp.destroy() }
        let ns = try temp.store.namespace("default")
        // Above: the parent is replaced; the counter is gone, so the increment starts over.
        _ = try await ns.update("", [("c/n", #"{".sv":{"increment":1}}"#), ("c/t", "1")])
        _ = try await ns.update("", [("c/n", #"{".sv":{"increment":1}}"#), ("c/t", "2")])
        try await ns.set("c", #"{"m":1}"#)
        _ = try await ns.update("", [("c/n", #"{".sv":{"increment":1}}"#)])
        #expect(try await ns.json("c") == #"{"m":1,"n":1}"#)
        // Below: a child written under the leaf turns it into an object; writing the leaf
        // again must delete that child.
        try await ns.set("d/n", "1")
        try await ns.set("d/n/x", "2")
        _ = try await ns.update("", [("d/n", #"{".sv":{"increment":1}}"#)])
        #expect(try await ns.json("d") == #"{"n":1}"#)
        // Beside: a sibling's write keeps the counter remembered and right.
        _ = try await ns.update("", [("d/n", #"{".sv":{"increment":1}}"#), ("d/m", "true")])
        #expect(try await ns.json("d") == #"{"m":true,"n":2}"#)
        // The whole namespace replaced.
        try await ns.set("", #"{"d":{"n":10}}"#)
        _ = try await ns.update("", [("d/n", #"{".sv":{"increment":1}}"#)])
        #expect(try await ns.json("") == #"{"d":{"n":11}}"#)
    }

    @Test func overlappingLocationsAreFoundWhereverTheyAreInTheUpdate() async throws {
        let temp = try TemporaryStore()
        defer { temp.destroy() }
        let ns = try temp.store.namespace("default")
        do {
            _ = try await ns.update("", [("a", "1"), ("b/c", "2"), ("a/d/e", "3")])
            Issue.record("an update with a and a/d/e was accepted")
        } catch let error as StoreError {
            #expect(error.message.contains("'/a' and '/a/d/e' overlap"))
        }
        await #expect(throws: StoreError.self) {
            try await ns.update("", [("a/.priority", "1"), ("a", "2")])
        }
        // A priority beside the node's children is no overlap.
        try await ns.set("a", #"{"b":1}"#)
        _ = try await ns.update("", [("a/.priority", "1"), ("a/b", "2")])
        #expect(try await ns.json("", format: .export) == #"{"a":{".priority":1,"b":2}}"#)
    }

    @Test func anUpdatesLocationsArePlannedInTheByteOrderOfTheirKeys() throws {
        let relatives = ["b/x", "a", "b/.priority", "c/d", "-1", "10", "userChats/u2/g1/unread"].map {
            DataPath(keys: $0.split(separator: "/").map { ChildKey(String($0)) })
        }
        let located = LocatedEntries(
            base: DataPath(keys: [ChildKey("chat")]),
            relatives: relatives,
            keys: KeySpace(namespaceID: 1)
        )
        let order = try located.checkDisjoint()
        #expect(order.sorted() == Array(0..<relatives.count))
        let keys = order.map {
            located.isPriority[$0] ? located.dataKeys[$0] + [KeyEncoding.priorityMarker] : located.dataKeys[$0]
        }
        #expect(zip(keys, keys.dropFirst()).allSatisfy { KeyBytes.precedes($0, $1) })
    }

    @Test func indexEntriesFollowTheCountersAndTimesOfAFanoutWrite() async throws {
        let temp = try TemporaryStore()
        defer { temp.destroy() }
        let ns = try temp.store.namespace("default")
        try await ns.setIndexes([
            IndexSpec(
                location: [.key(ChildKey("chat")), .key(ChildKey("userChats")), .wildcard("$uid")],
                indexed: .child(path("lastMessageAt"))
            )
        ])
        for n in 0..<6 {
            _ = try await ns.update("chat", Self.message(n, chat: n % 4, members: 3))
        }
        // u3's chats by last message: g2 (2), g3 (3), g0 (4), g1 (5).
        let order = try await ns.read { reader in
            try reader.query(at: path("chat/userChats/u3"), Query(order: .child(path("lastMessageAt")))).map(
                \.key.string
            )
        }
        #expect(order == ["g2", "g3", "g0", "g1"])
    }
}
