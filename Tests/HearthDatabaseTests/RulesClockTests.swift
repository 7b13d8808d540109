import HearthCore
import HearthRules
import HearthTestSupport
import Testing

@testable import HearthDatabase
@testable import HearthStore

/// The rules' `now` for a read is the store's clock (the one that stamps writes), not the wall
/// clock: a test moves it instead of waiting.
struct RulesClockTests {
    @Test func aReadIsJudgedAtTheStoresTime() async throws {
        let clock = ManualClock(milliseconds: 1_000)
        let db = try TestDatabase(clock: { clock.now })
        defer { db.destroy() }
        let engine = try db.engine()
        engine.installRules(try RulesDocument.compiled(source: #"{"rules": {"open": {".read": "now < 2000"}}}"#))
        let ada = Caller.user(RuleAuth(uid: "ada"))
        let rules = engine.rules
        let namespace = try db.store.namespace("default")
        #expect(try await namespace.read { rules.canRead(ada, path: path("open"), query: nil, reader: $0) })
        clock.advance(by: 1_000)
        #expect(try await !namespace.read { rules.canRead(ada, path: path("open"), query: nil, reader: $0) })
    }
}
