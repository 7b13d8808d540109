import HearthCore
import Testing

@testable import HearthStore

/// A rules check on the writer reads through `NamespaceReader.summary(at:)`, which the writer
/// answers from what it remembers (`RuleReadMemory`): every answer must be what the snapshot
/// would say, whatever was written since it was remembered.
@Suite(.timeLimit(.minutes(3))) struct RuleReadMemoryTests {
    /// Lets a post into `posts/$group/$post` only when `members/$group/$uid` exists for the
    /// writer's uid, and the author is not blocked there: the shape of the chat app's rule.
    static func membershipCheck(_ uid: String) -> WriteAuthorizer {
        { proposal in
            let group = proposal.location.keys[1]
            let member = DataPath(keys: [ChildKey("members"), group, ChildKey(uid)])
            let blocked = DataPath(keys: [ChildKey("blocked"), group, ChildKey(uid)])
            proposal.reads?.note(member)
            proposal.reads?.note(blocked)
            proposal.reads?.note(proposal.location)
            defer { proposal.reads?.isComplete = true }
            return proposal.reader.summary(at: member) != .absent && proposal.reader.summary(at: blocked) == .absent
                && proposal.reader.summary(at: proposal.location) == .absent
        }
    }

    static func post(_ ns: NamespaceStore, _ group: String, _ id: String, as uid: String = "u") async throws {
        _ = try await ns.write(
            Write(.set(path("posts/\(group)/\(id)"), try value(#"{"t":1}"#))),
            authorize: membershipCheck(uid)
        )
    }

    static func refused(_ ns: NamespaceStore, _ group: String, _ id: String, as uid: String = "u") async -> Bool {
        do {
            try await post(ns, group, id, as: uid)
            return false
        } catch let error as StoreError {
            return error.code == .permissionDenied
        } catch {
            return false
        }
    }

    static func remembered(_ ns: NamespaceStore, _ where_: String) -> StoredSummary? {
        let key = ns.keys.dataKey(path(where_))
        return ns.writer.inspect { $0.shapes.reads.summary(at: key, hash: SubtreeShapes.hash(key)) }
    }

    @Test func aRememberedMembershipFollowsEveryWriteToIt() async throws {
        let temp = try TemporaryStore()
        defer { temp.destroy() }
        let ns = try temp.store.namespace("default")
        try await ns.set("members/g/u", "true")
        try await Self.post(ns, "g", "p1")
        #expect(Self.remembered(ns, "members/g/u") == .leaf(.bool(true)), "the membership is not remembered")
        #expect(Self.remembered(ns, "blocked/g/u") == .absent, "the missing block is not remembered")
        #expect(Self.remembered(ns, "posts/g/p1") == nil, "a read at the write's own location was remembered")
        try await Self.post(ns, "g", "p2")
        // At: the member removed, then back.
        try await ns.write(Write(.set(path("members/g/u"), .null)))
        #expect(await Self.refused(ns, "g", "p3"), "a removed member still posts")
        try await ns.set("members/g/u", #""admin""#)
        try await Self.post(ns, "g", "p4")
        // Below: the leaf becomes an object (still a member), then above: the group's members
        // replaced without them.
        try await ns.set("members/g/u/role", #""admin""#)
        try await Self.post(ns, "g", "p5")
        #expect(Self.remembered(ns, "members/g/u") == .children)
        try await ns.set("members/g", #"{"v":true}"#)
        #expect(await Self.refused(ns, "g", "p6"), "a member replaced away still posts")
        try await ns.set("members", #"{"g":{"u":true}}"#)
        try await Self.post(ns, "g", "p7")
        // A block written by a multi-path update at the root.
        try await ns.update("", [("blocked/g/u", "true"), ("other/x", "1")])
        #expect(await Self.refused(ns, "g", "p8"), "a blocked member still posts")
        try await ns.write(Write(.set(path("blocked"), .null)))
        try await Self.post(ns, "g", "p9")
        // Another member's reads are their own.
        #expect(await Self.refused(ns, "g", "q1", as: "w"))
        guard case .children(let posts, _)? = try await ns.node("posts/g") else {
            Issue.record("no posts")
            return
        }
        #expect(posts.keys.map(\.string) == ["p1", "p2", "p4", "p5", "p7", "p9"])
    }

    @Test func aMembershipRemovedInTheSameRoundRefusesTheNextPost() async throws {
        let temp = try TemporaryStore()
        defer { temp.destroy() }
        let ns = try temp.store.namespace("default")
        try await ns.set("members/g/u", "true")
        try await Self.post(ns, "g", "p0")
        let post = { (id: String) in Write(.set(path("posts/g/\(id)"), try value(#"{"t":1}"#))) }
        let anyone: WriteAuthorizer = { @Sendable _ in true }
        let results = try await ns.writeInOneRound(
            [],
            then: [
                (try post("p1"), Self.membershipCheck("u")),
                (Write(.set(path("members/g/u"), try value("false"))), anyone),
                (try post("p2"), Self.membershipCheck("u")),
                (Write(.set(path("members/g"), try value(#"{"v":true}"#))), anyone),
                (try post("p3"), Self.membershipCheck("u")),
            ]
        )
        #expect((try? results[0].get()) != nil)
        #expect((try? results[2].get()) != nil, "a member whose value changed is still a member")
        guard case .failure(let error as StoreError) = results[4] else {
            Issue.record("a post after the member was removed in the same round was let in")
            return
        }
        #expect(error.code == StoreError.Code.permissionDenied)
    }

    @Test func aNewChildPastAKnownEndIsAbsentWithoutARead() async throws {
        let temp = try TemporaryStore()
        defer { temp.destroy() }
        let ns = try temp.store.namespace("default")
        try await ns.set("members/g/u", "true")
        for id in ["p1", "p2", "p3"] { try await Self.post(ns, "g", id) }
        let postKey = ns.keys.dataKey(path("posts/g/p4"))
        #expect(ns.writer.inspect { $0.shapes.isPastTail(postKey) }, "the list's end is not known")
        // A post at an existing location is read from the snapshot (and refused by the check).
        #expect(await Self.refused(ns, "g", "p2"))
        try await Self.post(ns, "g", "p4")
    }

    /// The bounds on their own.
    @Test func longStringsAreNotRememberedAndTheCapacityForgetsEverything() {
        let keys = KeySpace(namespaceID: 7)
        func key(_ string: String) -> [UInt8] { keys.dataKey(path(string)) }
        let reads = RememberedReads()
        let long = String(repeating: "x", count: RememberedReads.maxRememberedString + 1)
        reads.remember(StoredSummary.leaf(.string(long)), at: key("a"))
        reads.remember(StoredSummary.absent, at: key(""))
        #expect(reads.isEmpty)
        for index in 0..<RememberedReads.summaryCapacity { reads.remember(StoredSummary.absent, at: key("k/\(index)")) }
        #expect(reads.summary(at: key("k/0"), hash: SubtreeShapes.hash(key("k/0"))) == .absent)
        reads.remember(StoredSummary.children, at: key("next"))
        #expect(reads.summary(at: key("k/0"), hash: SubtreeShapes.hash(key("k/0"))) == nil)
        #expect(reads.summary(at: key("next"), hash: SubtreeShapes.hash(key("next"))) == .children)
    }
}
