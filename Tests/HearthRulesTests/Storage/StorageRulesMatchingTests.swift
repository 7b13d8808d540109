import HearthCore
import Testing

@testable import HearthRules

@Suite("Storage rules: matches, methods and decisions")
struct StorageRulesMatchingTests {
    static let avatars = """
        rules_version = '2';
        service firebase.storage {
          match /b/{bucket}/o {
            match /users/{uid}/{file=**} {
              allow read: if request.auth != null;
              allow write: if request.auth.uid == uid;
            }
            match /public/{name} {
              allow get;
            }
          }
        }
        """

    @Test func wildcardsBindAndDecide() throws {
        let rules = try storageRules(Self.avatars)
        #expect(rules.decide(read("users/bob/avatar.png")).allowed)
        #expect(!rules.decide(read("users/bob/avatar.png", as: nil)).allowed)
        #expect(rules.decide(create("users/alice/a/b/c.png")).allowed)
        #expect(!rules.decide(create("users/bob/avatar.png")).allowed)
        let decision = rules.decide(create("users/alice/x.png"))
        #expect(decision.trace.last?.bindings.map(\.name) == ["bucket", "file", "uid"])
        #expect(decision.trace.last?.bindings.map(\.value) == ["hearth.appspot.com", "x.png", "alice"])
        #expect(decision.decidedBy?.rule == "allow write")
        #expect(decision.decidedBy?.position == SourcePosition(line: 6, column: 7))
    }

    @Test func readCoversGetAndListWriteCoversTheRest() throws {
        let rules = try storageRules(Self.avatars)
        var list = read("users/bob/")
        list.method = .list
        #expect(rules.decide(list).allowed)
        var delete = read("users/alice/x.png")
        delete.method = .delete
        #expect(rules.decide(delete).allowed)
        delete.auth = RuleAuth(uid: "bob")
        #expect(!rules.decide(delete).allowed)
        // `allow get` does not cover list.
        var publicList = read("public/")
        publicList.method = .list
        #expect(!rules.decide(publicList).allowed)
        #expect(rules.decide(read("public/x", as: nil)).allowed)
        #expect(!rules.decide(read("public/x/y", as: nil)).allowed)
    }

    @Test func recursiveWildcardMatchesZeroSegmentsInVersion2OnlyAndListNeedsVersion2() throws {
        let v2 = try storageRules(Self.avatars)
        var list = read("users/bob")
        list.method = .list
        #expect(v2.decide(list).allowed)
        let v1 = try storageRules(Self.avatars.replacingOccurrences(of: "rules_version = '2';", with: ""))
        #expect(!v1.decide(list).allowed, "list needs rules_version '2'")
        #expect(!v1.decide(read("users/bob")).allowed, "{file=**} takes at least one segment in version 1")
        #expect(v1.decide(read("users/bob/a")).allowed)
    }

    @Test func anyMatchingAllowGrantsAndErrorsDeny() throws {
        let rules = try storageRules(
            """
            rules_version = '2';
            service firebase.storage {
              match /b/{bucket}/o {
                match /{all=**} { allow read: if request.auth.uid == 'root'; }
                match /docs/{doc} { allow read: if doc == 'open'; }
              }
            }
            """
        )
        #expect(
            rules.decide(read("docs/open", as: nil)).allowed,
            "the first allow errs (auth is null), the second grants"
        )
        let denied = rules.decide(read("docs/closed", as: nil))
        #expect(!denied.allowed)
        #expect(denied.trace.count == 2)
        if case .error = denied.trace[0].outcome {} else { Issue.record("expected an error outcome") }
        #expect(rules.decide(read("anything/deep", as: "root")).allowed)
    }

    @Test func noMatchDenies() throws {
        let rules = try storageRules(Self.avatars)
        #expect(!rules.decide(read("elsewhere/x")).allowed)
        #expect(!rules.decide(read("users/bob/x", bucket: "other")).allowed == false, "{bucket} matches any bucket")
        #expect(!StorageRules.denyAll.decide(read("users/bob/x")).allowed)
    }

    @Test func functionsSeeTheirScopeAndArguments() throws {
        let rules = try storageRules(
            """
            rules_version = '2';
            service firebase.storage {
              function signedIn() { return request.auth != null; }
              match /b/{bucket}/o {
                match /chats/{chatId}/{file} {
                  function isImage(limit) {
                    let type = request.resource.contentType;
                    return type.matches('image/.*') && request.resource.size < limit;
                  }
                  allow create: if signedIn() && isImage(5 * 1024 * 1024) && chatId.size() > 2;
                }
              }
            }
            """
        )
        #expect(rules.decide(create("chats/c42/a.png")).allowed)
        #expect(!rules.decide(create("chats/c42/a.png", as: nil)).allowed)
        #expect(!rules.decide(create("chats/c42/a.png", size: 6 * 1024 * 1024)).allowed)
        #expect(!rules.decide(create("chats/c42/a.mp4", contentType: "video/mp4")).allowed)
        #expect(!rules.decide(create("chats/c4/a.png")).allowed)
    }

    @Test func databaseReadsDecideMembership() throws {
        let rules = try storageRules(
            """
            rules_version = '2';
            service firebase.storage {
              match /b/{bucket}/o/chats/{chatId}/{file=**} {
                allow read: if database.exists(/members/$(chatId)/$(request.auth.uid));
                allow create: if database.get(/chats/$(chatId)/kind) == 'group'
                  && database.get(/members/$(chatId)/$(request.auth.uid)) == true;
              }
            }
            """
        )
        #expect(rules.usesDatabase)
        let database = try StorageRulesTree(json: [
            "members": ["c1": ["alice": true]], "chats": ["c1": ["kind": "group"]],
        ]
        )
        #expect(rules.decide(read("chats/c1/x.png"), database: database).allowed)
        #expect(!rules.decide(read("chats/c1/x.png", as: "bob"), database: database).allowed)
        #expect(!rules.decide(read("chats/c2/x.png"), database: database).allowed)
        #expect(rules.decide(create("chats/c1/x.png"), database: database).allowed)
        #expect(!rules.decide(read("chats/c1/x.png")).allowed, "without a database the read is an error")
        // A key the database cannot hold is an error, not a read of another place.
        #expect(!rules.decide(read("chats/c.1/x.png"), database: database).allowed)
    }

    @Test func resourceIsTheObjectBeforeAndRequestResourceAfter() throws {
        let rules = try storageRules(
            """
            rules_version = '2';
            service firebase.storage {
              match /b/{bucket}/o/{name=**} {
                allow create: if resource == null;
                allow update: if resource.metadata.owner == request.auth.uid
                  && request.resource.metadata.owner == resource.metadata.owner;
                allow delete: if resource.size < 100;
              }
            }
            """
        )
        #expect(rules.decide(create("x")).allowed)
        let existing = StorageRuleObject(
            name: "x",
            bucket: "hearth.appspot.com",
            size: 50,
            timeCreated: 0,
            updated: 0,
            metadata: ["owner": "alice"]
        )
        var update = create("x", metadata: ["owner": "alice"])
        update.method = .update
        update.resource = existing
        #expect(rules.decide(update).allowed)
        update.newResource?.metadata["owner"] = "bob"
        #expect(!rules.decide(update).allowed)
        var delete = read("x", resource: existing)
        delete.method = .delete
        #expect(rules.decide(delete).allowed)
    }
}
