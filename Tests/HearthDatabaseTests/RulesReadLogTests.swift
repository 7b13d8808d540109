import HearthCore
import HearthRules
import Testing

@testable import HearthDatabase
@testable import HearthStore

/// A write judged by the rules reports what the rules read, so the store can tell whether
/// writes staged in the same round (not in the snapshot judged) could change the verdict.
struct RulesReadLogTests {
    static let rules = """
        {"rules": {"rooms": {"$room": {"$message": {
          ".write": "root.child('members').child($room).child(auth.uid).exists()",
          ".validate": "newData.isString()"
        }}}}}
        """

    @Test func aJudgedWriteNotesThePathsItsRulesReadAndMarksTheLogComplete() async throws {
        try await withDatabase { db, engine in
            engine.installRules(try RulesDocument.compiled(source: Self.rules))
            try await engine.set("members", #"{"r1":{"ada":true}}"#)
            let write = Write(.set(path("rooms/r1/m1"), value(#""hi""#)))
            let rules = engine.rules
            let (allowed, complete, paths) = try await db.store.namespace("default").read { reader in
                let log = ReadLog()
                let proposal = WriteProposal(
                    write: write,
                    values: [.leaf(.string("hi"), priority: nil)],
                    reader: reader,
                    now: 1,
                    reads: log
                )
                return (rules.canWrite(.user(RuleAuth(uid: "ada")), proposal), log.isComplete, log.paths)
            }
            #expect(allowed)
            #expect(complete)
            #expect(paths.contains(path("members/r1/ada")))
        }
    }
}
