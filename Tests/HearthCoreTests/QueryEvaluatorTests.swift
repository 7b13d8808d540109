import Testing

@testable import HearthCore

/// Expectations worked out from the Firebase JS SDK's `RangedFilter`, `LimitedFilter`,
/// `QueryParams` (startAt → MIN_NAME, startAfter → MAX_NAME, endAt → MAX_NAME,
/// endBefore → MIN_NAME when no key is given) and the index classes.
struct QueryEvaluatorTests {
    static let data = tree(
        """
        {"a": {"score": 5, ".priority": 2}, "b": {"score": 3}, "c": {"score": 5, ".priority": "x"},
         "d": {"score": "s"}, "e": {"other": 1}, "f": {"score": true}, "1": {"score": 3, ".priority": 1}, "10": 7}
        """
    )!

    static var children: Children {
        guard case .children(let c, _) = data else { fatalError() }
        return c
    }

    struct Case: Sendable, CustomTestStringConvertible {
        var id: String
        var query: Query
        var keys: [String]
        var testDescription: String { id }
    }

    static let score = QueryOrder.child(DataPath(keys: [ChildKey("score")]))
    static func b(_ v: LeafValue?, _ k: String? = nil) -> QueryBound { QueryBound(value: v, key: k.map(ChildKey.init)) }

    static let cases: [Case] = [
        Case(id: "child order", query: Query(order: score), keys: ["10", "e", "f", "1", "b", "a", "c", "d"]),
        Case(id: "child startAt", query: Query(order: score, start: b(.number(5))), keys: ["a", "c", "d"]),
        Case(id: "child startAt name", query: Query(order: score, start: b(.number(5), "b")), keys: ["c", "d"]),
        Case(
            id: "child startAfter",
            query: Query(order: score, start: b(.number(3)), startIsExclusive: true),
            keys: ["a", "c", "d"]
        ),
        Case(
            id: "child startAfter name",
            query: Query(order: score, start: b(.number(3), "1"), startIsExclusive: true),
            keys: ["b", "a", "c", "d"]
        ),
        Case(
            id: "child startAfter MAX_NAME wire",
            query: Query(order: score, start: b(.number(3), "[MAX_NAME]"), startIsExclusive: true),
            keys: ["a", "c", "d"]
        ),
        Case(id: "child endAt", query: Query(order: score, end: b(.number(3))), keys: ["10", "e", "f", "1", "b"]),
        Case(
            id: "child endBefore",
            query: Query(order: score, end: b(.number(5)), endIsExclusive: true),
            keys: ["10", "e", "f", "1", "b"]
        ),
        Case(
            id: "child endBefore name",
            query: Query(order: score, end: b(.number(5), "c"), endIsExclusive: true),
            keys: ["10", "e", "f", "1", "b", "a"]
        ),
        Case(
            id: "child endAt name",
            query: Query(order: score, end: b(.number(5), "a")),
            keys: ["10", "e", "f", "1", "b", "a"]
        ),
        Case(
            id: "child equalTo",
            query: Query(order: score, start: b(.number(3)), end: b(.number(3))),
            keys: ["1", "b"]
        ),
        Case(
            id: "child equalTo name",
            query: Query(order: score, start: b(.number(3), "b"), end: b(.number(3), "b")),
            keys: ["b"]
        ),
        Case(id: "child equalTo null", query: Query(order: score, start: b(nil), end: b(nil)), keys: ["10", "e"]),
        Case(
            id: "child equalTo true",
            query: Query(order: score, start: b(.bool(true)), end: b(.bool(true))),
            keys: ["f"]
        ),
        Case(id: "child strings", query: Query(order: score, start: b(.string("a"))), keys: ["d"]),
        Case(id: "child limitToFirst", query: Query(order: score, limit: .first(2)), keys: ["10", "e"]),
        Case(id: "child limitToLast", query: Query(order: score, limit: .last(2)), keys: ["c", "d"]),
        Case(
            id: "child range and limit",
            query: Query(order: score, start: b(.number(3)), limit: .first(3)),
            keys: ["1", "b", "a"]
        ),
        Case(
            id: "child range and limitToLast",
            query: Query(order: score, end: b(.number(3)), limit: .last(2)),
            keys: ["1", "b"]
        ),
        Case(id: "key order", query: Query(order: .key), keys: ["1", "10", "a", "b", "c", "d", "e", "f"]),
        Case(id: "key startAt", query: Query(order: .key, start: b(.string("b"))), keys: ["b", "c", "d", "e", "f"]),
        Case(
            id: "key startAfter",
            query: Query(order: .key, start: b(.string("b")), startIsExclusive: true),
            keys: ["c", "d", "e", "f"]
        ),
        Case(
            id: "key endBefore",
            query: Query(order: .key, end: b(.string("b")), endIsExclusive: true),
            keys: ["1", "10", "a"]
        ),
        Case(id: "key endAt int", query: Query(order: .key, end: b(.string("10"))), keys: ["1", "10"]),
        Case(
            id: "key startAt int order",
            query: Query(order: .key, start: b(.string("2"))),
            keys: ["10", "a", "b", "c", "d", "e", "f"]
        ),
        Case(id: "key equalTo", query: Query(order: .key, start: b(.string("c")), end: b(.string("c"))), keys: ["c"]),
        Case(id: "key limitToLast", query: Query(order: .key, limit: .last(3)), keys: ["d", "e", "f"]),
        Case(id: "priority order", query: Query(order: .priority), keys: ["10", "b", "d", "e", "f", "1", "a", "c"]),
        Case(
            id: "priority startAt number",
            query: Query(order: .priority, start: b(.number(1))),
            keys: ["1", "a", "c"]
        ),
        Case(id: "priority startAt string", query: Query(order: .priority, start: b(.string("x"))), keys: ["c"]),
        Case(id: "priority endAt null", query: Query(order: .priority, end: b(nil)), keys: ["10", "b", "d", "e", "f"]),
        Case(
            id: "priority startAt null name",
            query: Query(order: .priority, start: b(nil, "d")),
            keys: ["d", "e", "f", "1", "a", "c"]
        ),
        Case(id: "value order", query: Query(order: .value), keys: ["10", "1", "a", "b", "c", "d", "e", "f"]),
        Case(id: "value endAt number", query: Query(order: .value, end: b(.number(7))), keys: ["10"]),
        Case(
            id: "value startAfter number",
            query: Query(order: .value, start: b(.number(7)), startIsExclusive: true),
            keys: ["1", "a", "b", "c", "d", "e", "f"]
        ),
        Case(id: "limit zero", query: Query(order: .key, limit: .first(0)), keys: []),
    ]

    @Test(arguments: cases)
    func evaluate(_ c: Case) {
        let result = QueryEvaluator.apply(c.query, to: Self.children)
        #expect(result.map(\.key.string) == c.keys)
    }

    @Test func valueOrderOfScalars() {
        guard
            case .children(let children, _) = tree(
                #"{"a":3,"b":"x","c":true,"d":false,"e":1.5,"f":{"z":1},"g":"X","h":-1}"#
            )!
        else {
            return
        }
        let result = QueryEvaluator.apply(Query(order: .value), to: children)
        #expect(result.map(\.key.string) == ["d", "c", "h", "e", "a", "g", "b", "f"])
    }

    @Test func compareValues() {
        let values: [Node?] = [
            nil, tree("false"), tree("true"), tree("-1"), tree("2"), tree(#""A""#), tree(#""a""#),
            tree("\"\u{1F600}\""), tree("\"\u{FF61}\""), tree(#"{"x":1}"#),
        ]
        for i in values.indices {
            for j in values.indices {
                let c = NodeOrdering.compareValues(values[i], values[j])
                #expect(i < j ? c < 0 : (i == j ? c == 0 : c > 0), "\(i) vs \(j)")
            }
        }
        #expect(NodeOrdering.compareValues(tree(#"{"a":1}"#), tree(#"{"b":2}"#)) == 0)
    }

    @Test func nestedChildPath() {
        guard case .children(let children, _) = tree(#"{"x":{"a":{"b":2}},"y":{"a":{"b":1}},"z":{"a":5}}"#)! else {
            return
        }
        let order = QueryOrder.child(DataPath(keys: [ChildKey("a"), ChildKey("b")]))
        #expect(QueryEvaluator.apply(Query(order: order), to: children).map(\.key.string) == ["z", "y", "x"])
    }
}
