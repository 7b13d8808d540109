import HearthCore
import HearthRules
import HearthStore
import Testing

@testable import HearthDatabase

/// The database's one-time reads and conditional writes (what REST asks for): queries, shallow
/// listings, priorities, ETags, `if-none-match` and `if-match`, judged by the rules.
struct DatabaseReadWriteTests {
    static let rules = """
        {"rules": {
          "public": { ".read": true, "$k": { ".write": "newData.isNumber()" } },
          "users": { "$uid": { ".read": "$uid === auth.uid", ".write": "$uid === auth.uid" } },
          "owned": { "$id": { ".write": "data.child('owner').val() === auth.uid" } }
        }}
        """

    static func json(_ result: ReadResult) -> String? {
        guard case .found(.json(let bytes), _) = result else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }

    static func etag(_ result: ReadResult) -> String? {
        switch result {
        case .found(_, let etag): return etag
        case .notModified(let etag): return etag
        }
    }

    @Test func aValueReadRendersTheValueAndItsETagOnlyWhenWanted() async throws {
        try await withDatabase { _, engine in
            try await engine.set("a", #"{"x":{".value":1,".priority":5},"y":"two"}"#)
            let plain = try await engine.read(ReadRequest(path: path("a")), as: .admin)
            #expect(Self.json(plain) == #"{"x":1,"y":"two"}"#)
            #expect(Self.etag(plain) == nil)
            let exported = try await engine.read(
                ReadRequest(path: path("a"), format: .export, wantsETag: true),
                as: .admin
            )
            #expect(Self.json(exported) == #"{"x":{".value":1,".priority":5},"y":"two"}"#)
            let expected = try await engine.store.read { $0.etag(at: path("a")) }
            #expect(Self.etag(exported) == expected)
            let missing = try await engine.read(ReadRequest(path: path("nothing"), wantsETag: true), as: .admin)
            #expect(Self.json(missing) == "null")
            #expect(Self.etag(missing) == "null_etag")
        }
    }

    @Test func ifNoneMatchAnswersNotModifiedOnlyForTheCurrentETag() async throws {
        try await withDatabase { _, engine in
            try await engine.set("a", #"{"x":1}"#)
            let first = try await engine.read(ReadRequest(path: path("a"), wantsETag: true), as: .admin)
            let etag = try #require(Self.etag(first))
            let same = try await engine.read(ReadRequest(path: path("a"), ifNoneMatch: etag), as: .admin)
            guard case .notModified(let answered) = same else {
                Issue.record("expected notModified, got \(same)")
                return
            }
            #expect(answered == etag)
            try await engine.set("a/x", "2")
            let changed = try await engine.read(ReadRequest(path: path("a"), ifNoneMatch: etag), as: .admin)
            #expect(Self.json(changed) == #"{"x":2}"#)
            #expect(Self.etag(changed) != etag)
        }
    }

    @Test func queryShallowAndPriorityReads() async throws {
        try await withDatabase { _, engine in
            try await engine.set("list", #"{"a":{"n":3},"b":{"n":1},"c":"leaf","d":{".value":4,".priority":"p"}}"#)
            let query = Query(order: .key, limit: .first(2))
            let selected = try await engine.read(
                ReadRequest(path: path("list"), selection: .value(query: query)),
                as: .admin
            )
            #expect(Self.json(selected) == #"{"a":{"n":3},"b":{"n":1}}"#)
            let none = try await engine.read(
                ReadRequest(path: path("empty"), selection: .value(query: query)),
                as: .admin
            )
            #expect(Self.json(none) == "{}")

            let shallow = try await engine.read(
                ReadRequest(path: path("list"), selection: .shallow(startAfter: ChildKey("a"), limit: 2)),
                as: .admin
            )
            guard case .found(.shallow(.children(let children)), _) = shallow else {
                Issue.record("expected a shallow listing, got \(shallow)")
                return
            }
            #expect(children.map(\.key.string) == ["b", "c"])
            #expect(children.map(\.leaf) == [nil, .string("leaf")])

            let priority = try await engine.read(ReadRequest(path: path("list/d"), selection: .priority), as: .admin)
            guard case .found(.priority(let found), _) = priority else {
                Issue.record("expected a priority, got \(priority)")
                return
            }
            #expect(found == .string("p"))
        }
    }

    @Test func readsAreJudgedByTheRules() async throws {
        try await withDatabase { _, engine in
            engine.installRules(try RulesDocument.compiled(source: Self.rules))
            try await engine.set("users/ada", #"{"name":"Ada"}"#)
            let ada = Caller.user(RuleAuth(uid: "ada"))
            let own = try await engine.read(ReadRequest(path: path("users/ada")), as: ada)
            #expect(Self.json(own) == #"{"name":"Ada"}"#)
            for (caller, where_) in [(Caller.anonymous, "users/ada"), (.user(RuleAuth(uid: "bob")), "users/ada")] {
                let error = await #expect(throws: StoreError.self) {
                    try await engine.read(ReadRequest(path: path(where_)), as: caller)
                }
                #expect(error?.code == .permissionDenied)
            }
            // A shallow read is judged as a read of its node.
            await #expect(throws: StoreError.self) {
                try await engine.read(
                    ReadRequest(path: path("users"), selection: .shallow(startAfter: nil, limit: nil)),
                    as: ada
                )
            }
        }
    }

    @Test func aConditionalWriteCommitsOnlyOnTheCurrentETag() async throws {
        try await withDatabase { _, engine in
            try await engine.set("c", "1")
            let etag = try #require(
                Self.etag(try await engine.read(ReadRequest(path: path("c"), wantsETag: true), as: .admin))
            )
            let stale = try await engine.write(
                Write(.set(path("c"), value("5")), ifMatch: "not-the-etag"),
                as: .admin,
                returningETagAt: path("c")
            )
            guard case .conditionFailed(let current, let currentETag) = stale else {
                Issue.record("expected a condition failure, got \(stale)")
                return
            }
            #expect(text(current) == "1")
            #expect(currentETag == etag)
            #expect(text(try await engine.get(path: path("c"), query: nil, as: .admin)) == "1")

            let done = try await engine.write(
                Write(.set(path("c"), value("2")), ifMatch: etag),
                as: .admin,
                returningETagAt: path("c")
            )
            guard case .committed(let values, let newETag) = done else {
                Issue.record("expected a commit, got \(done)")
                return
            }
            #expect(values.map(text) == ["2"])
            let after = try await engine.read(ReadRequest(path: path("c"), wantsETag: true), as: .admin)
            #expect(newETag == Self.etag(after))
            #expect(newETag != etag)
            // Without a location, no ETag is read.
            let unasked = try await engine.write(Write(.set(path("c"), value("3"))), as: .admin, returningETagAt: nil)
            guard case .committed(_, nil) = unasked else {
                Issue.record("expected a commit without an ETag, got \(unasked)")
                return
            }
        }
    }

    @Test func anAbsentLocationMatchesTheNullETag() async throws {
        try await withDatabase { _, engine in
            let created = try await engine.write(
                Write(.set(path("new"), value("1")), ifMatch: "null_etag"),
                as: .admin,
                returningETagAt: nil
            )
            guard case .committed = created else {
                Issue.record("expected a commit, got \(created)")
                return
            }
            let again = try await engine.write(
                Write(.set(path("new"), value("2")), ifMatch: "null_etag"),
                as: .admin,
                returningETagAt: nil
            )
            guard case .conditionFailed(let current, _) = again else {
                Issue.record("expected a condition failure, got \(again)")
                return
            }
            #expect(text(current) == "1")
        }
    }

    @Test func writesAreJudgedByTheRulesAndARefusedOneChangesNothing() async throws {
        try await withDatabase { _, engine in
            engine.installRules(try RulesDocument.compiled(source: Self.rules))
            let ada = Caller.user(RuleAuth(uid: "ada"))
            _ = try await engine.write(Write(.set(path("public/n"), value("1"))), as: .anonymous, returningETagAt: nil)
            let refused: [(Caller, Write)] = [
                (.anonymous, Write(.set(path("public/n"), value(#""text""#)))),
                (ada, Write(.set(path("users/bob/name"), value(#""Ada""#)))),
                (.anonymous, Write(.update(path("public"), [UpdateEntry(path: path("n"), value: value("true"))]))),
            ]
            for (caller, write) in refused {
                let error = await #expect(throws: StoreError.self) {
                    try await engine.write(write, as: caller, returningETagAt: nil)
                }
                #expect(error?.code == .permissionDenied)
            }
            #expect(text(try await engine.get(path: .root, query: nil, as: .admin)) == #"{"public":{"n":1}}"#)
        }
    }

    @Test func everyWriteDeniedBeforeTheDataIsKnown() async throws {
        try await withDatabase { _, engine in
            engine.installRules(try RulesDocument.compiled(source: Self.rules))
            try await engine.set("owned/o1", #"{"owner":"ada"}"#)
            let ada = Caller.user(RuleAuth(uid: "ada"))
            let bob = Caller.user(RuleAuth(uid: "bob"))
            #expect(try await engine.deniesEveryWrite(at: path("users/bob"), as: ada, readingCurrentData: false))
            #expect(try await !engine.deniesEveryWrite(at: path("users/ada"), as: ada, readingCurrentData: false))
            // Decided by the data written: not denied here.
            #expect(try await !engine.deniesEveryWrite(at: path("public/n"), as: .anonymous, readingCurrentData: true))
            // Decided by the current data: denied only when it is read.
            #expect(try await !engine.deniesEveryWrite(at: path("owned/o1"), as: bob, readingCurrentData: false))
            #expect(try await engine.deniesEveryWrite(at: path("owned/o1"), as: bob, readingCurrentData: true))
            #expect(try await !engine.deniesEveryWrite(at: path("owned/o1"), as: ada, readingCurrentData: true))
            #expect(try await !engine.deniesEveryWrite(at: path("users/bob"), as: .admin, readingCurrentData: true))
        }
    }
}
