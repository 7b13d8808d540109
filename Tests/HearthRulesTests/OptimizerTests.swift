import HearthCore
import Testing

@testable import HearthRules

/// `RuleOptimizer` and the evaluator's fast paths (`childChain`, `snapshotCall`, the auth
/// shortcuts, known new nodes) must not change a single outcome: each expression is evaluated
/// as checked and as optimized, and the outcomes, error messages included, must be identical.
struct OptimizerCase: CustomTestStringConvertible, Sendable {
    let expression: String
    let kind: RuleKind
    var testDescription: String { "\(kind.rawValue) \(expression)" }
}

/// The new data written at `/items/a` in the write cases.
let optimizerNewNode =
    #"{"name": "Alicia", "age": 31, "nested": {"deep": {"v": "w"}}, "tags": {"x": true}, ".priority": 7}"#

struct OptimizerTests {
    static let writeExpressions = [
        "newData.val() != null", "newData.exists()", "!newData.exists()", "newData.isString()",
        "newData.hasChildren()", "newData.hasChildren(['name', 'age'])", "newData.hasChildren(['name', 'nope'])",
        "newData.hasChildren([''])", "newData.hasChildren([])", "newData.hasChildren(['nested/deep/v'])",
        "newData.hasChild('nested/deep/v')", "newData.hasChild('')", "newData.hasChild('nope')",
        "newData.child('name').val() == 'Alicia'", "newData.child('name').hasChildren(['x'])",
        "newData.child('name').hasChild('x')", "newData.child('nope').hasChildren()",
        "newData.child('nested').child('deep').child('v').val() == 'w'",
        "newData.child('nested').child($id == 'a' ? 'deep' : 'x').child('v').val() == 'w'",
        "newData.child('nested').child($id + '/v').val() == null", "newData.child('/nested//deep/').hasChild('v')",
        "newData.child('').child('name').val() == 'Alicia'", "newData.child($id).exists()",
        "newData.child('name').child('x').exists()", "newData.child($id + '.b').exists() || true",
        "newData.child(auth.uid).exists() || true", "newData.child(auth.uid).exists()",
        "newData.child(auth.token.level).exists() || true", "newData.child(auth.token.firebase).exists() || true",
        "newData.parent().child('b').child('name').val() == 'Bob'",
        "newData.child('nested/deep').parent().parent().child('age').val() == 31",
        "newData.child('nested').parent().child('name').val() == 'Alicia'",
        "newData.child('nested').getPriority() == null", "newData.getPriority() == 7",
        "newData.child('name').val().length == 6", "newData.child('tags').hasChildren(['x', 'y'])",
        "newData.child('tags/x').isBoolean()", "newData.child('age').isNumber()",
        "newData.child('age').val() > data.child('age').val()", "newData.child('name').isNumber()",
        "data.child('name').val() == 'Alice' && newData.child('name').val() == 'Alicia'",
        "root.child('items').child($id).child('age').val() == 30", "root.child('items/' + $id).hasChildren(['name'])",
        "root.child('items/' + $id).hasChild('name')",
        "root.child('users').child(auth.uid).child('role').val() == 'admin'",
        "root.child('users/' + auth.uid + '/role').exists()", "root.child('users').child(auth.uid + '#').exists()",
        "!data.exists()", "data.exists() && !root.child('items/c').exists()", "data.child('tags').hasChildren()",
        "data.hasChildren(['name', 'email'])", "data.child($id).val() == null", "data.val() == newData.val()",
        "auth == null", "null == auth", "auth != null", "null != auth", "auth != null && auth.uid == $id + 'lice'",
        "auth.uid == 'alice'", "!(auth.uid == 'alice')", "auth.provider == 'password'", "auth.uid.length == 5",
        "auth == auth", "auth.token.email == 'alice@example.com'",
    ]

    static var cases: [OptimizerCase] {
        let reads =
            (ExpressionTests.literalsAndOperators + ExpressionTests.variables + ExpressionTests.snapshots
            + ExpressionTests.strings).map { OptimizerCase(expression: $0.expression, kind: .read) }
        return reads + writeExpressions.map { OptimizerCase(expression: $0, kind: .validate) }
    }

    @Test(arguments: cases)
    func optimizedEvaluatesAsChecked(_ testCase: OptimizerCase) throws {
        let syntax = try RuleParser.parse(Array(testCase.expression.unicodeScalars))
        let problems = ProblemList()
        let checker = RuleChecker(kind: testCase.kind, wildcards: ["$id"]) { problems.items.append($1) }
        let checked = checker.check(rule: syntax)
        #expect(problems.items.isEmpty, "\(problems.items)")
        let optimized = RuleOptimizer.optimize(checked)
        let current = RuleMemorySource(root: tree(expressionData))
        let target = path("/items/a")
        let newNode = tree(optimizerNewNode)
        let newRoot = RuleOverlaySource(base: current, writes: [(target, newNode)])
        // "team/alice" is not one key: `child(auth.uid)` splits it (the evaluator's one-key fast
        // path must not apply).
        for uid in ["alice", "team/alice", nil] as [String?] {
            for known in testCase.kind == .read ? [false] : [false, true] {
                var evaluator = RuleEvaluator(
                    auth: auth(uid, token: expressionToken),
                    current: current,
                    new: testCase.kind == .read ? nil : newRoot,
                    now: 1000,
                    query: RuleQuery()
                )
                evaluator.wildcards = [ChildKey("a")]
                evaluator.locationKeys = target.keys
                if known { evaluator.newNodeAtLocation = .known(newNode) }
                let expected = evaluator.run(checked)
                let actual = evaluator.run(optimized)
                #expect(actual == expected, "uid \(uid ?? "nil"), known new node \(known)")
            }
        }
    }

    @Test func chainsAreFusedAndAuthIsReadDirectly() throws {
        let syntax = try RuleParser.parse(
            Array("auth != null && root.child('members').child($id).child(auth.uid).exists()".unicodeScalars)
        )
        let checker = RuleChecker(kind: .read, wildcards: ["$id"]) { _, _ in }
        let optimized = RuleOptimizer.optimize(checker.check(rule: syntax))
        guard case .and(.authIsNull(false), .snapshotCall(.root, let segments, .exists, _)) = optimized else {
            Issue.record("not fused: \(optimized)")
            return
        }
        #expect(segments.count == 3)
    }

    /// Rules locations with many literal children look them up through a dictionary.
    @Test func manyLiteralChildren() {
        let children = (0..<20).map { #""k\#($0)": {".read": "auth == null"}"# }.joined(separator: ", ")
        guard let program = compile(#"{"rules": {"box": {\#(children)}}}"#) else { return }
        let root = RuleMemorySource(root: nil)
        for i in 0..<20 {
            #expect(program.canRead(path: path("/box/k\(i)"), auth: nil, root: root, now: 0).allowed)
        }
        #expect(!program.canRead(path: path("/box/k20"), auth: nil, root: root, now: 0).allowed)
    }

    /// `RuleOverlaySource.summary(at:)` and `priority(at:)` agree with `node(at:)`, and
    /// `RuleMemorySource`'s native walk with `descendant`.
    @Test func sourcesAgreeWithTheirNodes() {
        let base = RuleMemorySource(root: tree(expressionData))
        let writeSets: [[(path: DataPath, node: Node?)]] = [
            [(path("/items/a"), tree(optimizerNewNode))],
            [(path("/items/a"), tree(optimizerNewNode)), (path("/items/a/name"), nil)],
            [(path("/items/a/name"), tree(#""X""#)), (path("/items"), tree(#"{"z": 1}"#))],
            [(path("/items"), tree(#"{"z": 1}"#)), (path("/items/z/q"), tree("2"))],
            [(path("/leaf/x"), tree("1"))],
            [(path("/items/b"), nil), (path("/items/a"), nil)],
        ]
        let paths = [
            "/", "/items", "/items/a", "/items/a/name", "/items/a/nested/deep/v", "/items/a/name/x", "/items/b",
            "/items/z", "/items/z/q", "/leaf", "/leaf/x", "/users/alice", "/nope/x",
        ].map(path)
        for writes in writeSets {
            let overlay = RuleOverlaySource(base: base, writes: writes)
            for p in paths {
                #expect(
                    overlay.summary(at: p) == RuleNodeSummary(overlay.node(at: p)),
                    "\(p) after \(writes.map(\.path))"
                )
                #expect(overlay.priority(at: p) == overlay.node(at: p)?.priority, "\(p)")
            }
        }
        for p in paths {
            #expect(base.summary(at: p) == RuleNodeSummary(base.node(at: p)))
            #expect(base.priority(at: p) == base.node(at: p)?.priority)
        }
    }
}

private final class ProblemList: @unchecked Sendable {
    var items: [String] = []
}
