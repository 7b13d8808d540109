import Testing
@testable import HearthCore

struct RulesIndexesTests {
    @Test func extractsNestedIndexes() throws {
        let rules = """
            // Chat rules
            {
              "rules": {
                ".read": false,
                "users": {
                  ".indexOn": ["displayName", "profile/phone"],
                  "$uid": { ".read": "auth.uid == $uid", ".validate": "newData.hasChildren()" }
                },
                "messages": {
                  "$chatId": {
                    /* by time */
                    ".indexOn": "sentAt",
                    "$messageId": { ".indexOn": ".value" }
                  }
                },
                "scores": { ".indexOn": [".value", ".value"] }
              }
            }
            """
        let specs = try RulesIndexes.extract(fromRulesDocument: Array(rules.utf8))
        #expect(specs.map(\.description) == [
            "/users displayName", "/users profile/phone", "/messages/$chatId sentAt",
            "/messages/$chatId/$messageId .value", "/scores .value",
        ])
        #expect(specs[2].matches(try DataPath.parse("/messages/c1")))
        #expect(!specs[2].matches(try DataPath.parse("/messages")))
        #expect(specs[2].indexed == .child(DataPath(keys: [ChildKey("sentAt")])))
    }

    @Test(arguments: [
        (#"{"rules":{"a":{".indexOn":5}}}"#,
         "Invalid .indexOn at '/rules/a/.indexOn': found a number; expected a string or an array of strings ('.value' or a child path such as 'a/b')."),
        (#"{"rules":{"a":{".indexOn":["x",true]}}}"#,
         "Invalid .indexOn at '/rules/a/.indexOn': found true; expected a string or an array of strings ('.value' or a child path such as 'a/b')."),
        (#"{"rules":{"$u":{".indexOn":"a.b"}}}"#,
         "Invalid .indexOn entry 'a.b' at '/rules/$u/.indexOn': expected '.value' or a child path of valid keys such as 'a/b'."),
        (#"{"rules":{"a":{"b":true}}}"#, "Invalid rules at '/rules/a/b': found true; expected an object of rules."),
        (#"{"rules":{"a#":{}}}"#,
         "Invalid rules key 'a#' at '/rules': keys cannot contain '.', '#', '$', '[', ']', '/' or control characters."),
        (#"{"other":{}}"#, "Invalid rules document: the key 'rules' is missing; expected {\"rules\": {...}}."),
        ("[]", "Invalid rules document: found an array at the top level; expected an object {\"rules\": {...}}."),
        (#"{"rules":{"#, "Invalid JSON at byte 10: unexpected end of input."),
    ])
    func errors(_ c: (String, String)) {
        #expect(coreErrorMessage { _ = try RulesIndexes.extract(fromRulesDocument: Array(c.0.utf8)) } == c.1)
    }
}
