import Foundation
import HearthCore
import Testing

@testable import HearthRules

/// Chat-like rules after the schema of CONTRACT.md, "The chat app": profiles readable by
/// signed-in users, members read their chats and messages, members send messages by push as
/// themselves with the server time, each user reads only their own chat list.
let chatRules = #"""
    {
      "rules": {
        ".read": false,
        ".write": false,
        "users": {
          ".indexOn": ["phoneNumber", "email", "displayName"],
          "$uid": {
            ".read": "auth != null",
            ".write": "auth != null && auth.uid == $uid",
            ".validate": "newData.hasChildren(['displayName'])",
            "displayName": { ".validate": "newData.isString() && newData.val().length >= 1 && newData.val().length <= 50" },
            "phoneNumber": { ".validate": "newData.isString() && newData.val().matches(/^\\+[1-9]\\d{1,14}$/)" },
            "email": { ".validate": "newData.isString()" },
            "status": { ".validate": "newData.isString() && newData.val().length <= 256" },
            "photoUrl": { ".validate": "newData.isString() && newData.val().length <= 2048" },
            "createdAt": { ".validate": "newData.isNumber() && newData.val() <= now" },
            "$other": { ".validate": false }
          }
        },
        "chats": { "$chatId": { ".read": "auth != null && root.child('members').child($chatId).child(auth.uid).exists()" } },
        "members": { "$chatId": { ".read": "auth != null && root.child('members').child($chatId).child(auth.uid).exists()" } },
        "messages": {
          "$chatId": {
            ".indexOn": ["sentAt"],
            ".read": "auth != null && root.child('members/' + $chatId + '/' + auth.uid).exists()",
            "$messageId": {
              ".write": "auth != null && !data.exists() && root.child('members').child($chatId).child(auth.uid).exists()",
              ".validate": "newData.hasChildren(['sender', 'kind', 'sentAt']) && newData.child('sender').val() == auth.uid && (newData.child('kind').val() != 'text' || newData.hasChild('text')) && (newData.child('kind').val() == 'text' || newData.hasChild('attachmentUrl'))",
              "sender": { ".validate": "newData.isString()" },
              "kind": { ".validate": "newData.val() == 'text' || newData.val() == 'image' || newData.val() == 'video'" },
              "text": { ".validate": "newData.isString() && newData.val().length >= 1 && newData.val().length <= 4096" },
              "attachmentUrl": { ".validate": "newData.isString()" },
              "sentAt": { ".validate": "newData.val() == now" },
              "$other": { ".validate": false }
            }
          }
        },
        "userChats": { "$uid": { ".read": "auth != null && auth.uid == $uid", ".indexOn": ["lastMessageAt", "unread"] } },
        "unreadTotals": { "$uid": { ".read": "auth != null && auth.uid == $uid" } }
      }
    }
    """#

let chatData = #"""
    {
      "users": { "alice": { "displayName": "Alice", "phoneNumber": "+14155550100" }, "bob": { "displayName": "Bob" } },
      "chats": { "c1": { "type": "private", "owner": "alice" } },
      "members": { "c1": { "alice": { "role": "owner" }, "bob": { "role": "member" } } },
      "messages": { "c1": { "m1": { "sender": "alice", "kind": "text", "text": "hi", "sentAt": 1 } } },
      "userChats": { "alice": { "c1": { "unread": 0, "lastMessageAt": 1 } }, "bob": { "c1": { "unread": 1, "lastMessageAt": 1 } } },
      "unreadTotals": { "alice": 0, "bob": 1 }
    }
    """#

let chatFixture = #"""
    {
      "rules": \#(chatRules),
      "data": \#(chatData),
      "now": 1700000000000,
      "cases": [
        { "name": "a signed-in user reads a profile", "op": "read", "path": "/users/bob", "auth": {"uid": "alice"}, "expected": "allow" },
        { "name": "anonymous cannot read a profile", "op": "read", "path": "/users/bob", "auth": null, "expected": "deny" },
        { "name": "nobody lists users", "op": "read", "path": "/users", "auth": {"uid": "alice"}, "expected": "deny" },
        { "name": "nobody queries users by phone number", "op": "read", "path": "/users", "auth": {"uid": "alice"}, "query": {"orderByChild": "phoneNumber", "equalTo": "+14155550100"}, "expected": "deny" },
        { "name": "a member reads the chat", "op": "read", "path": "/chats/c1", "auth": {"uid": "bob"}, "expected": "allow" },
        { "name": "a stranger cannot read the chat", "op": "read", "path": "/chats/c1", "auth": {"uid": "carol"}, "expected": "deny" },
        { "name": "a member reads the members", "op": "read", "path": "/members/c1", "auth": {"uid": "alice"}, "expected": "allow" },
        { "name": "a member reads messages", "op": "read", "path": "/messages/c1", "auth": {"uid": "bob"}, "query": {"orderByChild": "sentAt", "limitToLast": 50}, "expected": "allow" },
        { "name": "a stranger cannot read messages", "op": "read", "path": "/messages/c1", "auth": {"uid": "carol"}, "expected": "deny" },
        { "name": "a user reads their own chat list", "op": "read", "path": "/userChats/alice", "auth": {"uid": "alice"}, "query": {"orderByChild": "lastMessageAt", "limitToLast": 20}, "expected": "allow" },
        { "name": "nobody reads another's chat list", "op": "read", "path": "/userChats/alice", "auth": {"uid": "bob"}, "expected": "deny" },
        { "name": "a user reads their unread total", "op": "read", "path": "/unreadTotals/bob", "auth": {"uid": "bob"}, "expected": "allow" },
        { "name": "a member sends a text message", "op": "write", "path": "/messages/c1/m2", "auth": {"uid": "bob"}, "value": {"sender": "bob", "kind": "text", "text": "hello", "sentAt": {".sv": "timestamp"}}, "expected": "allow" },
        { "name": "a member sends an image", "op": "write", "path": "/messages/c1/m2", "auth": {"uid": "bob"}, "value": {"sender": "bob", "kind": "image", "attachmentUrl": "https://x/y.png", "sentAt": {".sv": "timestamp"}}, "expected": "allow" },
        { "name": "an image needs an attachment", "op": "write", "path": "/messages/c1/m2", "auth": {"uid": "bob"}, "value": {"sender": "bob", "kind": "image", "sentAt": {".sv": "timestamp"}}, "expected": "deny" },
        { "name": "a text message needs text", "op": "write", "path": "/messages/c1/m2", "auth": {"uid": "bob"}, "value": {"sender": "bob", "kind": "text", "sentAt": {".sv": "timestamp"}}, "expected": "deny" },
        { "name": "sender must be the author", "op": "write", "path": "/messages/c1/m2", "auth": {"uid": "bob"}, "value": {"sender": "alice", "kind": "text", "text": "x", "sentAt": {".sv": "timestamp"}}, "expected": "deny" },
        { "name": "sentAt must be the server time", "op": "write", "path": "/messages/c1/m2", "auth": {"uid": "bob"}, "value": {"sender": "bob", "kind": "text", "text": "x", "sentAt": 5}, "expected": "deny" },
        { "name": "unknown kind", "op": "write", "path": "/messages/c1/m2", "auth": {"uid": "bob"}, "value": {"sender": "bob", "kind": "audio", "attachmentUrl": "u", "sentAt": {".sv": "timestamp"}}, "expected": "deny" },
        { "name": "extra fields are refused ($other)", "op": "write", "path": "/messages/c1/m2", "auth": {"uid": "bob"}, "value": {"sender": "bob", "kind": "text", "text": "x", "sentAt": {".sv": "timestamp"}, "pinned": true}, "expected": "deny" },
        { "name": "a stranger cannot send", "op": "write", "path": "/messages/c1/m2", "auth": {"uid": "carol"}, "value": {"sender": "carol", "kind": "text", "text": "x", "sentAt": {".sv": "timestamp"}}, "expected": "deny" },
        { "name": "messages cannot be edited", "op": "write", "path": "/messages/c1/m1", "auth": {"uid": "alice"}, "value": {"sender": "alice", "kind": "text", "text": "edited", "sentAt": {".sv": "timestamp"}}, "expected": "deny" },
        { "name": "text longer than 4096", "op": "write", "path": "/messages/c1/m2", "auth": {"uid": "bob"}, "value": {"sender": "bob", "kind": "text", "text": "\#(String(repeating: "x", count: 4097))", "sentAt": {".sv": "timestamp"}}, "expected": "deny" },
        { "name": "a user edits their profile", "op": "update", "path": "/users/alice", "auth": {"uid": "alice"}, "value": {"status": "busy", "displayName": "Al"}, "expected": "allow" },
        { "name": "a profile without displayName", "op": "write", "path": "/users/carol", "auth": {"uid": "carol"}, "value": {"status": "new"}, "expected": "deny" },
        { "name": "displayName too long", "op": "write", "path": "/users/alice/displayName", "auth": {"uid": "alice"}, "value": "\#(String(repeating: "n", count: 51))", "expected": "deny" },
        { "name": "phone number not E.164", "op": "write", "path": "/users/alice/phoneNumber", "auth": {"uid": "alice"}, "value": "415-555-0100", "expected": "deny" },
        { "name": "phone number E.164", "op": "write", "path": "/users/alice/phoneNumber", "auth": {"uid": "alice"}, "value": "+4930123456", "expected": "allow" },
        { "name": "someone else's profile", "op": "write", "path": "/users/bob/status", "auth": {"uid": "alice"}, "value": "hacked", "expected": "deny" },
        { "name": "clients cannot write chat lists", "op": "write", "path": "/userChats/alice/c1/unread", "auth": {"uid": "alice"}, "value": 0, "expected": "deny" },
        { "name": "createdAt in the future", "op": "write", "path": "/users/alice/createdAt", "auth": {"uid": "alice"}, "value": 1800000000000, "expected": "deny" }
      ]
    }
    """#

struct ChatRulesTests {
    @Test(arguments: FixtureCase.all(chatFixture))
    func chat(_ testCase: FixtureCase) {
        testCase.run()
    }
}

/// Micro-benchmark: µs per evaluation for a message write and a chat-list read under the chat
/// rules. Skipped unless `HEARTH_RULES_BENCH` is set; run it in release:
///
///     HEARTH_RULES_BENCH=1 swift test -c release --filter RulesBenchmark
struct RulesBenchmark {
    @Test(.enabled(if: Environment.variable("HEARTH_RULES_BENCH") != nil))
    func microsecondsPerEvaluation() throws {
        let program = try RulesDocument.compiled(source: chatRules)
        let current = RuleMemorySource(root: tree(chatData))
        let alice = RuleAuth(uid: "alice")
        let bob = RuleAuth(uid: "bob")
        let now = 1_700_000_000_000.0
        let message = tree(#"{"sender": "bob", "kind": "text", "text": "hello there", "sentAt": 1700000000000}"#)
        let messagePath = path("/messages/c1/-NzAbCdEfGhIjKlMnOpQ")
        let newRoot = RuleOverlaySource(base: current, writes: [(messagePath, message)])
        let listPath = path("/userChats/alice")
        let query = RuleQuery(Query(order: .child(path("/lastMessageAt")), limit: .last(20)))
        #expect(program.canWrite(path: messagePath, auth: bob, root: current, newRoot: newRoot, now: now).allowed)
        #expect(program.canRead(path: listPath, auth: alice, root: current, now: now, query: query).allowed)

        func measure(_ label: String, _ body: () -> Bool) {
            let iterations = 200_000
            var best = Double.infinity
            for _ in 0..<5 {
                var allowed = 0
                let start = ContinuousClock.now
                for _ in 0..<iterations where body() { allowed += 1 }
                let elapsed = ContinuousClock.now - start
                let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
                best = min(best, seconds / Double(iterations) * 1e6)
                #expect(allowed == iterations)
            }
            print("rules benchmark: \(label): \(String(format: "%.3f", best)) µs/eval")
        }
        measure("message write (write cascade + 7 validates)") {
            program.canWrite(path: messagePath, auth: bob, root: current, newRoot: newRoot, now: now).allowed
        }
        measure("chat-list read (query)") {
            program.canRead(path: listPath, auth: alice, root: current, now: now, query: query).allowed
        }
        measure("message-list read (membership lookup)") {
            program.canRead(path: path("/messages/c1"), auth: bob, root: current, now: now).allowed
        }
    }
}

enum Environment {
    static func variable(_ name: String) -> String? {
        ProcessInfo.processInfo.environment[name]
    }
}
