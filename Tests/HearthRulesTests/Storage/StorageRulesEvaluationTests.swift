import Foundation
import HearthCore
import Testing

@testable import HearthRules

/// The simulator's record of a storage rules decision: the value of every part of each
/// condition that ran, as a tree (a function's body under its call), literals left out, parts a
/// short circuit skipped not listed; nothing recorded for the server's own decisions.
@Suite struct StorageRulesEvaluationTests {
    @Test func everyPartOfTheConditionWithItsValue() throws {
        let rules = try conditionRules(
            "isOwner(path) && request.time < timestamp.date(2100, 1, 1)",
            functions: "function isOwner(p) { return request.auth.uid == p.split('/')[1]; }"
        )
        let decision = rules.decide(read("users/alice/a.png"), recording: true)
        #expect(decision.allowed)
        let root = try #require(decision.trace.last?.evaluation)
        #expect(root.text == "isOwner(path) && request.time < timestamp.date(2100, 1, 1)")
        #expect(root.value == .data(.bool(true)))
        let call = try #require(root.children.first)
        #expect(call.text == "isOwner(path)" && call.value == .data(.bool(true)))
        // The argument, then the function's body with its parts.
        #expect(call.children.map(\.text) == ["path", "request.auth.uid == p.split('/')[1]"])
        #expect(call.children[0].value == .data(.string("users/alice/a.png")))
        let comparison = try #require(root.children.last)
        #expect(comparison.children.first?.text == "request.time")
        #expect(comparison.children.first?.value.typeName == "timestamp")
        #expect(decision.evaluationTruncated == false)
        // The JSON answer carries the tree under the entry, not under `decidedBy`.
        guard case .object(let fields) = decision.json,
            case .array(let trace)? = fields.first(where: { $0.0 == "trace" })?.1,
            case .object(let entry)? = trace.last,
            case .object(let decidedBy)? = fields.first(where: { $0.0 == "decidedBy" })?.1
        else {
            Issue.record("unexpected JSON: \(decision.json)")
            return
        }
        #expect(entry.contains { $0.0 == "evaluation" })
        #expect(!decidedBy.contains { $0.0 == "evaluation" })
    }

    @Test func shortCircuitedPartsAreNotListedAndErrorsAreShown() throws {
        let rules = try conditionRules("request.auth != null && request.auth.uid == 'bob' || request.auth.token.x > 1")
        let decision = rules.decide(read("a.png", as: nil), recording: true)
        #expect(!decision.allowed)
        let root = try #require(decision.trace.last?.evaluation)
        var texts: [String] = []
        func walk(_ node: RuleSubexpression) {
            texts.append(node.text)
            node.children.forEach(walk)
        }
        walk(root)
        #expect(!texts.contains("request.auth.uid == 'bob'"))
        #expect(texts.contains("request.auth.token.x > 1"))
        let erring = try #require(root.children.last)
        if case .error = erring.value {} else { Issue.record("expected an error, got \(erring.value.shown)") }
    }

    @Test func theServersDecisionsRecordNothing() throws {
        let rules = try conditionRules("request.auth.uid == 'alice'")
        let decision = rules.decide(read("a.png"))
        #expect(decision.allowed && decision.trace.last?.evaluation == nil)
    }
}

/// Which requests need the database: only those a condition that reads it (directly or through
/// the functions it calls) may decide.
@Suite struct StorageRulesDatabaseUseTests {
    @Test func onlyConditionsThatReachDatabaseCallsNeedIt() throws {
        let rules = try storageRules(
            """
            rules_version = '2';
            service firebase.storage {
              function member(chat) { let path = /members/$(chat)/$(request.auth.uid); return database.exists(path); }
              function viaMember(chat) { return request.auth != null && member(chat); }
              match /b/{bucket}/o {
                match /users/{uid}/{file=**} {
                  allow read: if request.auth != null;
                  allow write: if request.auth.uid == uid;
                }
                match /chats/{chat}/{file=**} {
                  allow read: if viaMember(chat);
                  allow delete: if request.auth.uid == 'admin';
                }
                match /rooms/{room} {
                  allow get: if database.get(/rooms/$(room)/open) == true;
                }
              }
            }
            """
        )
        #expect(rules.usesDatabase)
        #expect(!rules.readsDatabase([.create, .update], bucket: "b", name: "users/alice/a.png"))
        #expect(!rules.readsDatabase([.get], bucket: "b", name: "users/alice/a.png"))
        #expect(rules.readsDatabase([.get], bucket: "b", name: "chats/c1/photo.jpg"))
        #expect(!rules.readsDatabase([.delete], bucket: "b", name: "chats/c1/photo.jpg"))
        #expect(rules.readsDatabase([.get], bucket: "b", name: "rooms/r1"))
        #expect(!rules.readsDatabase([.list], bucket: "b", name: "rooms/r1"))
        #expect(!rules.readsDatabase([.get], bucket: "b", name: "elsewhere/x"))
    }

    @Test func theShippedRulesReadTheDatabaseForChatsOnly() throws {
        let rules = try storageRules(
            try String(contentsOf: shippedRulesDirectory.appendingPathComponent("storage.rules"), encoding: .utf8)
        )
        #expect(!rules.readsDatabase([.create, .update], bucket: "b", name: "users/alice/avatar.png"))
        #expect(rules.readsDatabase([.get], bucket: "b", name: "chats/p1/a.jpg"))
        #expect(rules.readsDatabase([.create, .update], bucket: "b", name: "chats/p1/a.jpg"))
    }
}
