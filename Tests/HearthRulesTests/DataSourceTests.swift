import HearthCore
import Testing

@testable import HearthRules

/// The in-memory and overlay data sources (the overlay is `newData` for a write).
struct DataSourceTests {
    let base = RuleMemorySource(root: tree(#"{"a": {"b": 1, "c": {"d": "x"}}, "e": true}"#))

    @Test func overlayReplacesAtAndBelowAWrite() {
        let overlay = RuleOverlaySource(base: base, writes: [(path("/a/c"), tree(#"{"z": 2}"#))])
        #expect(overlay.node(at: path("/a/c")) == tree(#"{"z": 2}"#))
        #expect(overlay.node(at: path("/a/c/d")) == nil)
        #expect(overlay.node(at: path("/a/c/z")) == tree("2"))
        #expect(overlay.node(at: path("/a")) == tree(#"{"b": 1, "c": {"z": 2}}"#))
        #expect(overlay.node(at: path("/e")) == tree("true"))
        #expect(overlay.summary(at: path("/a/b")) == .leaf(.number(1)))
        #expect(overlay.summary(at: path("/a")) == .children)
    }

    /// `.validate` on an ancestor of a push (`newData.hasChildren()` on a list) must not read the
    /// whole list: the summary of an ancestor of a non-null write is known without it.
    @Test func overlaySummaryOfAnAncestorDoesNotMaterialiseIt() {
        final class Counting: RuleDataSource {
            let inner: RuleMemorySource
            var nodeReads: [DataPath] = []
            init(_ inner: RuleMemorySource) { self.inner = inner }
            func node(at path: DataPath) -> Node? {
                nodeReads.append(path)
                return inner.node(at: path)
            }
            func summary(at path: DataPath) -> RuleNodeSummary { inner.summary(at: path) }
        }
        let counting = Counting(base)
        let overlay = RuleOverlaySource(base: counting, writes: [(path("/a/c/new"), tree(#"{"n": 1}"#))])
        #expect(overlay.summary(at: path("/a")) == .children)
        #expect(overlay.summary(at: path("/a/c")) == .children)
        #expect(overlay.summary(at: .root) == .children)
        #expect(counting.nodeReads.isEmpty)
        // A deletion below an ancestor still needs the data (it may empty it).
        let deleting = RuleOverlaySource(base: counting, writes: [(path("/a/c/d"), nil)])
        #expect(deleting.summary(at: path("/a/c")) == .absent)
        #expect(!counting.nodeReads.isEmpty)
    }

    @Test func overlayDeletesAndEmptiesParents() {
        let overlay = RuleOverlaySource(base: base, writes: [(path("/a/b"), nil), (path("/a/c"), nil)])
        #expect(overlay.node(at: path("/a")) == nil)
        #expect(overlay.summary(at: path("/a")) == .absent)
        #expect(overlay.node(at: .root) == tree(#"{"e": true}"#))
    }

    @Test func overlayWritesUnderALeafMakeAnObject() {
        let overlay = RuleOverlaySource(base: base, writes: [(path("/e/f"), tree("1"))])
        #expect(overlay.node(at: path("/e")) == tree(#"{"f": 1}"#))
    }

    @Test func laterWritesWin() {
        let overlay = RuleOverlaySource(base: base, writes: [(path("/a"), tree("1")), (path("/a/x"), tree("2"))])
        #expect(overlay.node(at: path("/a")) == tree(#"{"x": 2}"#))
        let reversed = RuleOverlaySource(base: base, writes: [(path("/a/x"), tree("2")), (path("/a"), tree("1"))])
        #expect(reversed.node(at: path("/a")) == tree("1"))
    }

    @Test func priorityThroughTheOverlay() {
        let overlay = RuleOverlaySource(base: base, writes: [(path("/p"), tree(#"{".value": 1, ".priority": 9}"#))])
        #expect(overlay.priority(at: path("/p")) == .number(9))
        #expect(overlay.priority(at: path("/a")) == nil)
    }

    /// A data source that counts lookups: rules read only the nodes they name.
    final class CountingSource: RuleDataSource {
        let inner: RuleMemorySource
        var paths: [String] = []
        init(_ inner: RuleMemorySource) { self.inner = inner }
        func node(at path: DataPath) -> Node? {
            paths.append("node \(path)")
            return inner.node(at: path)
        }
        func summary(at path: DataPath) -> RuleNodeSummary {
            paths.append("summary \(path)")
            return inner.summary(at: path)
        }
    }

    @Test func rulesReadLazilyByPath() {
        guard
            let program = compile(
                #"{"rules": {"m": {"$c": {".read": "root.child('members').child($c).child(auth.uid).exists()"}}}}"#
            )
        else { return }
        let source = CountingSource(RuleMemorySource(root: tree(#"{"members": {"c1": {"alice": true}}}"#)))
        #expect(program.canRead(path: path("/m/c1"), auth: auth("alice"), root: source, now: 0).allowed)
        #expect(source.paths == ["summary /members/c1/alice"])
    }
}

/// `auth` and `query` built from JSON and from HearthCore values.
struct InputTests {
    @Test func authFromJSON() throws {
        let json = try JSONParser.parse(
            #"{"uid": "u1", "token": {"email": "a@b.c", "firebase": {"sign_in_provider": "google.com"}}}"#
        )
        let auth = try #require(try RuleAuth(json: json))
        #expect(auth.uid == "u1")
        #expect(auth.provider == "google.com")
        #expect(auth.token["email"] == .string("a@b.c"))
        #expect(auth.token["sub"] == .string("u1"))
        #expect(try RuleAuth(json: .null) == nil)
    }

    @Test func authFromClaims() throws {
        let claims = try JSONParser.parse(
            #"{"user_id": "u2", "sub": "u2", "firebase": {"sign_in_provider": "password"}}"#
        )
        let auth = try #require(RuleAuth(claims: claims))
        #expect(auth.uid == "u2")
        #expect(auth.provider == "password")
    }

    @Test func authWithoutUidIsRefused() {
        #expect(throws: RuleInputError.self) { _ = try RuleAuth(json: .object([("provider", .string("x"))])) }
    }

    @Test func queryFromCoreQuery() {
        let equal = Query(
            order: .child(path("/owner")),
            start: QueryBound(value: .string("u")),
            end: QueryBound(value: .string("u")),
            limit: .first(5)
        )
        let q = RuleQuery(equal)
        #expect(q.orderByChild == "owner")
        #expect(q.equalTo == .string("u"))
        #expect(q.limitToFirst == 5)
        #expect(!q.orderByKey)
        let keyed = RuleQuery(Query(order: .key, start: QueryBound(value: .string("a")), limit: .last(3)))
        #expect(keyed.orderByKey && keyed.startAt == .string("a") && keyed.equalTo == nil && keyed.limitToLast == 3)
    }

    @Test func queryFromJSON() throws {
        let q = try RuleQuery(json: JSONParser.parse(#"{"orderByValue": true, "startAt": 3, "endAt": null}"#))
        #expect(q.orderByValue && q.startAt == .number(3) && q.endAt == nil)
        #expect(throws: RuleInputError.self) { _ = try RuleQuery(json: .object([("limitToFirst", .number(-1))])) }
    }
}
