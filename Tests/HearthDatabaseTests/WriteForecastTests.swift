import HearthCore
import HearthRules
import Testing

@testable import HearthDatabase

/// `NamespaceRules.forecastWrite`: which writes are denied whatever their data, before it is
/// read (the server then refuses a body unread). `denied` must never be said of a write the
/// rules could allow with some data.
struct WriteForecastTests {
    static let rules = """
        {"rules": {
          "locked": { ".write": false, "open": { ".write": true } },
          "members": { ".write": "auth != null" },
          "users": { "$uid": { ".write": "$uid === auth.uid" } },
          "owned": { "$id": { ".write": "data.child('owner').val() === auth.uid" } },
          "fresh": { "$id": { ".write": "!data.exists()" } },
          "checked": { ".write": "newData.val() === 'ok'" },
          "mixed": { ".write": "auth != null && newData.exists()" },
          "valid": { ".write": true, ".validate": "newData.isString()" },
          "granted": { ".write": true, "below": { ".write": false } },
          "timed": { ".write": "now < 0" }
        }}
        """

    struct Case: Sendable, CustomTestStringConvertible {
        var path: String
        var uid: String?
        var withoutData: NamespaceRules.WriteForecast
        var withData: NamespaceRules.WriteForecast
        var testDescription: String { "\(path) as \(uid ?? "anonymous")" }
    }

    static let cases: [Case] = [
        .init(path: "locked/x", uid: nil, withoutData: .denied, withData: .denied),
        // A grant below the path does not allow a set at the path (rules cascade down).
        .init(path: "locked", uid: "ada", withoutData: .denied, withData: .denied),
        .init(path: "locked/open/x", uid: nil, withoutData: .undecided, withData: .undecided),
        .init(path: "members/x", uid: nil, withoutData: .denied, withData: .denied),
        .init(path: "members/x", uid: "ada", withoutData: .undecided, withData: .undecided),
        .init(path: "users/ada", uid: "ada", withoutData: .undecided, withData: .undecided),
        .init(path: "users/bob/name", uid: "ada", withoutData: .denied, withData: .denied),
        .init(path: "owned/o1", uid: "bob", withoutData: .needsCurrentData, withData: .denied),
        .init(path: "owned/o1", uid: "ada", withoutData: .needsCurrentData, withData: .undecided),
        .init(path: "owned/o2", uid: "bob", withoutData: .needsCurrentData, withData: .denied),
        .init(path: "fresh/o1", uid: nil, withoutData: .undecided, withData: .denied),
        .init(path: "checked", uid: nil, withoutData: .undecided, withData: .undecided),
        .init(path: "mixed", uid: nil, withoutData: .denied, withData: .denied),
        .init(path: "mixed", uid: "ada", withoutData: .undecided, withData: .undecided),
        .init(path: "valid/x", uid: nil, withoutData: .undecided, withData: .undecided),
        .init(path: "granted/below", uid: nil, withoutData: .undecided, withData: .undecided),
        .init(path: "timed", uid: "ada", withoutData: .denied, withData: .denied),
        .init(path: "", uid: nil, withoutData: .denied, withData: .denied),
    ]

    @Test(arguments: cases)
    func forecast(_ testCase: Case) async throws {
        try await withDatabase { db, engine in
            engine.installRules(try RulesDocument.compiled(source: Self.rules))
            try await engine.set("owned/o1", #"{"owner":"ada"}"#)
            try await engine.set("fresh/o1", "1")
            let rules = engine.rules
            let caller: Caller = testCase.uid.map { .user(RuleAuth(uid: $0)) } ?? .anonymous
            let target = path(testCase.path)
            #expect(rules.forecastWrite(caller, at: target) == testCase.withoutData)
            let withData = try await db.store.namespace("default").read { reader in
                rules.forecastWrite(caller, at: target, reader: reader)
            }
            #expect(withData == testCase.withData)
        }
    }

    @Test func theAdminIsNeverRefusedAndNoRulesRefuseEveryoneElse() async throws {
        try await withDatabase { _, engine in
            #expect(engine.rules.forecastWrite(.admin, at: path("x")) == .undecided)
            #expect(engine.rules.forecastWrite(.anonymous, at: path("x")) == .denied)
        }
    }
}
