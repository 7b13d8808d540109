import HearthCore
import Testing

@testable import HearthRules

struct SmokeTests {
    @Test func readCascadesAndWildcards() {
        guard
            let program = compile(
                #"""
                {
                  // comment
                  "rules": {
                    "users": {
                      "$uid": { ".read": "auth != null && auth.uid == $uid" }
                    }
                  }
                }
                """#
            )
        else { return }
        let data = RuleMemorySource(root: tree(#"{"users":{"alice":{"name":"A"}}}"#))
        #expect(program.canRead(path: path("/users/alice"), auth: auth("alice"), root: data, now: 0).allowed)
        #expect(!program.canRead(path: path("/users/alice"), auth: auth("bob"), root: data, now: 0).allowed)
        #expect(!program.canRead(path: path("/users/alice"), auth: nil, root: data, now: 0).allowed)
        #expect(!program.canRead(path: path("/users"), auth: auth("alice"), root: data, now: 0).allowed)
        #expect(program.canRead(path: path("/users/alice/name"), auth: auth("alice"), root: data, now: 0).allowed)
    }
}
