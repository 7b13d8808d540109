import HearthCore
import Testing

@testable import HearthProtocol

struct QueryObjectTests {
    struct RoundTrip: CustomTestStringConvertible, Sendable {
        var id: String
        /// The query object exactly as the SDK sends it.
        var wire: String
        var query: Query
        var identifier: String
        var testDescription: String { id }
    }

    static let roundTrips: [RoundTrip] = [
        RoundTrip(id: "default", wire: "{}", query: Query(), identifier: "default"),
        RoundTrip(
            id: "limitToFirst",
            wire: #"{"l":5,"vf":"l"}"#,
            query: Query(limit: .first(5)),
            identifier: #"{"l":5,"vf":"l"}"#
        ),
        RoundTrip(
            id: "orderByKey limitToLast",
            wire: #"{"l":2,"vf":"r","i":".key"}"#,
            query: Query(order: .key, limit: .last(2)),
            identifier: #"{"i":".key","l":2,"vf":"r"}"#
        ),
        RoundTrip(
            id: "orderByValue startAt",
            wire: #"{"sp":3,"sin":true,"i":".value"}"#,
            query: Query(order: .value, start: QueryBound(value: .number(3))),
            identifier: #"{"i":".value","sin":true,"sp":3}"#
        ),
        RoundTrip(
            id: "orderByChild equalTo",
            wire: #"{"sp":"x","sin":true,"ep":"x","ein":true,"i":"a/b"}"#,
            query: Query(
                order: .child(path("a/b")),
                start: QueryBound(value: .string("x")),
                end: QueryBound(value: .string("x"))
            ),
            identifier: #"{"ein":true,"ep":"x","i":"a/b","sin":true,"sp":"x"}"#
        ),
        RoundTrip(
            id: "startAt with name",
            wire: #"{"sp":1.5,"sn":"k1","sin":true}"#,
            query: Query(start: QueryBound(value: .number(1.5), key: ChildKey("k1"))),
            identifier: #"{"sin":true,"sn":"k1","sp":1.5}"#
        ),
        RoundTrip(
            id: "startAfter on child index",
            wire: #"{"sp":10,"sn":"[MAX_NAME]","sin":false,"i":"age"}"#,
            query: Query(
                order: .child(path("age")),
                start: QueryBound(value: .number(10), key: ChildKey("[MAX_NAME]")),
                startIsExclusive: true
            ),
            identifier: #"{"i":"age","sin":false,"sn":"[MAX_NAME]","sp":10}"#
        ),
        RoundTrip(
            id: "endBefore on key index",
            wire: #"{"ep":"m","ein":false,"i":".key"}"#,
            query: Query(order: .key, end: QueryBound(value: .string("m")), endIsExclusive: true),
            identifier: #"{"ein":false,"ep":"m","i":".key"}"#
        ),
        RoundTrip(
            id: "endAt null with limit",
            wire: #"{"ep":null,"ein":true,"l":3,"vf":"r"}"#,
            query: Query(end: QueryBound(value: nil), limit: .last(3)),
            identifier: #"{"ein":true,"ep":null,"l":3,"vf":"r"}"#
        ),
        RoundTrip(
            id: "boolean bound",
            wire: #"{"sp":false,"sin":true,"i":".value"}"#,
            query: Query(order: .value, start: QueryBound(value: .bool(false))),
            identifier: #"{"i":".value","sin":true,"sp":false}"#
        ),
        RoundTrip(
            id: "orderByChild alone loads all data",
            wire: #"{"i":"score"}"#,
            query: Query(order: .child(path("score"))),
            identifier: "default"
        ),
    ]

    @Test(arguments: roundTrips)
    func queryObjectRoundTrips(_ c: RoundTrip) throws {
        let wire = try JSONParser.parse(c.wire)
        let query = try QueryObject.query(from: wire)
        #expect(query == c.query)
        #expect(QueryObject.object(for: query) == wire)
        #expect(QueryIdentifier(query).rawValue == c.identifier)
    }

    @Test func absentAndNullQueriesAreTheDefault() throws {
        #expect(try QueryObject.query(from: nil) == Query())
        #expect(try QueryObject.query(from: .null) == Query())
        #expect(try QueryObject.query(from: JSONParser.parse(#"{"i":".priority"}"#)) == Query())
    }

    @Test func olderSDKsWithoutInclusivenessOrSide() throws {
        // Before startAfter/endBefore there was no sin/ein; `limit()` without a side anchors to
        // the start when only a start is set.
        let query = try QueryObject.query(from: JSONParser.parse(#"{"sp":1,"l":2}"#))
        #expect(query == Query(start: QueryBound(value: .number(1)), limit: .first(2)))
        let last = try QueryObject.query(from: JSONParser.parse(#"{"ep":1,"l":2}"#))
        #expect(last.limit == .last(2))
    }

    struct SameQuery: CustomTestStringConvertible, Sendable {
        var id: String
        var a: String
        var b: String
        var testDescription: String { id }
    }

    static let sameQueries: [SameQuery] = [
        SameQuery(id: "member order", a: #"{"l":5,"vf":"l","i":".key"}"#, b: #"{"i":".key","vf":"l","l":5}"#),
        SameQuery(id: "implicit inclusive start", a: #"{"sp":1}"#, b: #"{"sp":1,"sin":true}"#),
        SameQuery(id: "explicit priority index", a: #"{"l":1,"vf":"l","i":".priority"}"#, b: #"{"l":1,"vf":"l"}"#),
        SameQuery(
            id: "child path with slashes",
            a: #"{"i":"/a/b/","l":1,"vf":"l"}"#,
            b: #"{"i":"a/b","l":1,"vf":"l"}"#
        ),
        SameQuery(id: "all-data queries", a: #"{"i":".value"}"#, b: "{}"),
    ]

    @Test(arguments: sameQueries)
    func equivalentQueriesShareAnIdentifier(_ c: SameQuery) throws {
        let a = try QueryObject.query(from: JSONParser.parse(c.a))
        let b = try QueryObject.query(from: JSONParser.parse(c.b))
        #expect(QueryIdentifier(a) == QueryIdentifier(b))
        #expect(ListenKey(path: path("/x"), query: a) == ListenKey(path: path("/x"), query: b))
    }

    @Test func differentQueriesDiffer() throws {
        let ids = try [
            #"{"l":5,"vf":"l"}"#, #"{"l":5,"vf":"r"}"#, #"{"l":6,"vf":"l"}"#, #"{"sp":1}"#, #"{"sp":1,"sin":false}"#,
        ]
        .map { QueryIdentifier(try QueryObject.query(from: JSONParser.parse($0))) }
        #expect(Set(ids).count == ids.count)
        #expect(ListenKey(path: path("/a"), query: Query()) != ListenKey(path: path("/b"), query: Query()))
    }
}
