import Foundation
import HearthCore
import Testing

@testable import HearthRules

/// The repository's `rules/` directory: the shipped chat rules and their cases.
let shippedRulesDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("rules")

/// The shipped rules, `rules/database.rules.json`: they protect the chat schema of CONTRACT.md,
/// "The chat app" (see docs/rules.md, "Shipped chat rules").
let chatRules = try! String(
    contentsOf: shippedRulesDirectory.appendingPathComponent("database.rules.json"),
    encoding: .utf8
)

/// The shipped cases, `rules/tests/database.rules.test.json`, with the rules inlined (the file
/// names them by path).
let chatFixture: String = {
    let text = try! String(
        contentsOf: shippedRulesDirectory.appendingPathComponent("tests/database.rules.test.json"),
        encoding: .utf8
    )
    guard case .object(let members) = try! JSONParser.parse(text, allowComments: true) else { fatalError() }
    let rules = try! JSONParser.parse(chatRules, allowComments: true)
    return JSONText.render(.object(members.map { $0.0 == "rules" ? ($0.0, rules) : $0 }))
}()

/// A small database shaped like the seed.
let chatData = #"""
    {
      "users": {
        "alice": { "displayName": "Alice", "phoneNumber": "+14155550100", "email": "alice@example.com", "createdAt": 1 },
        "bob": { "displayName": "Bob", "createdAt": 1 }
      },
      "chats": { "c1": { "type": "private", "owner": "alice", "createdAt": 1 } },
      "members": { "c1": { "alice": { "role": "owner", "joinedAt": 1 }, "bob": { "role": "member", "joinedAt": 1 } } },
      "messages": { "c1": { "m1": { "sender": "alice", "kind": "text", "text": "hi", "sentAt": 1 } } },
      "userChats": {
        "alice": { "c1": { "unread": 0, "lastMessageAt": 1 } },
        "bob": { "c1": { "unread": 1, "lastMessageAt": 1 } }
      },
      "unreadTotals": { "alice": 0, "bob": 1 }
    }
    """#

struct ChatRulesTests {
    @Test(arguments: FixtureCase.all(chatFixture))
    func chat(_ testCase: FixtureCase) {
        testCase.run()
    }

    /// The seed is imported by the admin, so rules do not apply to it, but every profile and
    /// message in it is one a client could have written under the shipped rules.
    @Test func seedProfilesAndMessagesAreValidUnderTheShippedRules() throws {
        let program = try RulesDocument.compiled(source: chatRules)
        let seedURL = shippedRulesDirectory.deletingLastPathComponent().appendingPathComponent("seed/fireside.json")
        let seed = try TreeParser.parse(String(contentsOf: seedURL, encoding: .utf8), at: .root).node
        func children(_ path: DataPath) -> [(ChildKey, Node)] {
            guard case .children(let c, _)? = seed?.descendant(path) else { return [] }
            return Array(zip(c.keys, c.nodes))
        }
        func timestamp(_ node: Node, _ key: String) -> Double {
            guard case .leaf(.number(let n), _)? = node.child(ChildKey(key)) else { return 0 }
            return n
        }
        var checked = 0
        for (uid, profile) in children(path("/users")) {
            let target = path("/users").child(uid)
            let before = RuleMemorySource(root: NodeEditing.setting(seed, at: target, to: nil))
            let decision = program.canWrite(
                path: target,
                auth: RuleAuth(uid: uid.string),
                root: before,
                newRoot: RuleOverlaySource(base: before, writes: [(target, profile)]),
                now: timestamp(profile, "createdAt"),
                trace: true
            )
            #expect(decision.allowed, "profile \(uid): \(decision)")
            checked += 1
        }
        for (chatId, _) in children(path("/messages")) {
            for (messageId, message) in children(path("/messages").child(chatId)) {
                let target = path("/messages").child(chatId).child(messageId)
                guard case .leaf(.string(let sender), _)? = message.child(ChildKey("sender")) else {
                    Issue.record("message \(target) has no sender")
                    continue
                }
                let before = RuleMemorySource(root: NodeEditing.setting(seed, at: target, to: nil))
                let decision = program.canWrite(
                    path: target,
                    auth: RuleAuth(uid: sender),
                    root: before,
                    newRoot: RuleOverlaySource(base: before, writes: [(target, message)]),
                    now: timestamp(message, "sentAt"),
                    trace: true
                )
                // A call's message is the server's alone: the rules refuse it to its sender.
                if message.child(ChildKey("kind")) == .leaf(.string("call"), priority: nil) {
                    #expect(!decision.allowed, "call message \(target) is writable by a client")
                } else {
                    #expect(decision.allowed, "message \(target): \(decision)")
                }
                checked += 1
            }
        }
        #expect(checked > 400)
        // Each seed device is one its owner could have registered at its updatedAt.
        for (uid, devices) in children(path("/devices")) {
            guard case .children(let entries, _) = devices else { continue }
            for (device, entry) in zip(entries.keys, entries.nodes) {
                let target = path("/devices").child(uid).child(device)
                let before = RuleMemorySource(root: NodeEditing.setting(seed, at: target, to: nil))
                let decision = program.canWrite(
                    path: target,
                    auth: RuleAuth(uid: uid.string),
                    root: before,
                    newRoot: RuleOverlaySource(base: before, writes: [(target, entry)]),
                    now: timestamp(entry, "updatedAt"),
                    trace: true
                )
                #expect(decision.allowed, "device \(target): \(decision)")
            }
        }
    }
}

/// The operations `hearth-bench --scenario rules` times (docs/benchmarks.md) are allowed under
/// the shipped rules; the timing itself is the benchmark's.
struct RulesBenchmarkOperationsTests {
    @Test func aMembersMessageWriteAndAChatListReadAreAllowed() throws {
        let program = try RulesDocument.compiled(source: chatRules)
        let current = RuleMemorySource(root: tree(chatData))
        let now = 1_700_000_000_000.0
        let message = tree(#"{"sender": "bob", "kind": "text", "text": "hello there", "sentAt": 1700000000000}"#)
        let messagePath = path("/messages/c1/-NzAbCdEfGhIjKlMnOpQ")
        let newRoot = RuleOverlaySource(base: current, writes: [(messagePath, message)])
        let query = RuleQuery(Query(order: .child(path("/lastMessageAt")), limit: .last(20)))
        let bob = RuleAuth(uid: "bob")
        let alice = RuleAuth(uid: "alice")
        #expect(program.canWrite(path: messagePath, auth: bob, root: current, newRoot: newRoot, now: now).allowed)
        #expect(
            program.canRead(path: path("/userChats/alice"), auth: alice, root: current, now: now, query: query).allowed
        )
        #expect(program.canRead(path: path("/messages/c1"), auth: bob, root: current, now: now).allowed)
        #expect(program.canRead(path: path("/users/bob"), auth: alice, root: current, now: now).allowed)
    }
}
