import HearthCore
import Testing

@testable import HearthRules

/// The simulator's record of every part of each rule it evaluated (`RuleTraceEntry.evaluation`):
/// values, short-circuits, errors, where each part is written, and the limit per simulation.
struct SimulationValuesTests {
    static func simulate(_ rules: String, _ request: String, data: String = "null") throws -> RuleDecision {
        let program = try RulesDocument.compiled(source: rules, fileName: "test.rules.json")
        let simulation = try RuleSimulation(json: try JSONParser.parse(request))
        return try simulation.run(program, root: RuleMemorySource(root: tree(data)), now: 1000)
    }

    /// The part whose text is `text`, anywhere in the tree.
    static func part(_ text: String, in node: RuleSubexpression?) -> RuleSubexpression? {
        guard let node else { return nil }
        if node.text == text { return node }
        return node.children.lazy.compactMap { part(text, in: $0) }.first
    }

    @Test func aDeniedReadShowsTheValueOfEveryPartWhereItIsWritten() throws {
        let rules = """
            {
              "rules": {
                "docs": {
                  "$id": {
                    ".read": "data.child('owner').val() === auth.uid"
                  }
                }
              }
            }
            """
        let decision = try Self.simulate(
            rules,
            #"{"op": "read", "path": "/docs/d1", "auth": {"uid": "bob"}}"#,
            data: #"{"docs": {"d1": {"owner": "amy"}}}"#
        )
        #expect(!decision.allowed)
        let entry = try #require(decision.trace.last)
        let root = try #require(entry.evaluation)
        #expect(root.text == "data.child('owner').val() === auth.uid")
        #expect(root.value == .data(.bool(false)))
        #expect(root.position == SourcePosition(line: 5, column: 19))
        #expect(root.children.map(\.text) == ["data.child('owner').val()", "auth.uid"])
        let val = try #require(Self.part("data.child('owner').val()", in: root))
        #expect(val.value == .data(.string("amy")))
        #expect(val.children.map(\.text) == ["data.child('owner')"])
        #expect(
            Self.part("data.child('owner')", in: root)?.value == .snapshot(path("/docs/d1/owner"), afterWrite: false)
        )
        #expect(Self.part("data", in: root)?.value == .snapshot(path("/docs/d1"), afterWrite: false))
        let uid = try #require(Self.part("auth.uid", in: root))
        #expect(uid.value == .data(.string("bob")))
        #expect(uid.position == SourcePosition(line: 5, column: 49))
        #expect(Self.part("auth", in: root)?.value.typeName == "object")
        // Literals are not listed; nothing else is missing.
        #expect(Self.part("'owner'", in: root) == nil)
    }

    @Test func shortCircuitedPartsAreNotEvaluated() throws {
        let rules = #"""
            {"rules": {"$id": {
              ".read": "auth != null && root.child('members').child(auth.uid).exists()",
              ".write": "$id == 'a' ? newData.isString() : (newData.isNumber() || newData.child('n').exists())"
            }}}
            """#
        let read = try Self.simulate(rules, #"{"op": "read", "path": "/x"}"#)
        let readRoot = try #require(read.trace.last?.evaluation)
        #expect(readRoot.value == .data(.bool(false)))
        #expect(Self.part("auth != null", in: readRoot)?.value == .data(.bool(false)))
        let skipped = try #require(Self.part("root.child('members').child(auth.uid).exists()", in: readRoot))
        #expect(skipped.value == .notEvaluated)
        #expect(Self.part("auth.uid", in: skipped)?.value == .notEvaluated)

        let write = try Self.simulate(rules, #"{"op": "write", "path": "/b", "value": 5}"#)
        #expect(write.allowed)
        let writeRoot = try #require(write.trace.last?.evaluation)
        #expect(Self.part("$id == 'a'", in: writeRoot)?.value == .data(.bool(false)))
        #expect(Self.part("$id", in: writeRoot)?.value == .data(.string("b")))
        #expect(Self.part("newData.isString()", in: writeRoot)?.value == .notEvaluated)
        #expect(Self.part("newData.isNumber()", in: writeRoot)?.value == .data(.bool(true)))
        #expect(Self.part("newData.child('n').exists()", in: writeRoot)?.value == .notEvaluated)
        // The parenthesised part keeps its parentheses.
        let parenthesised = "(newData.isNumber() || newData.child('n').exists())"
        #expect(Self.part(parenthesised, in: writeRoot)?.value == .data(.bool(true)))
        let isNumber = Self.part("newData.isNumber()", in: writeRoot)
        #expect(Self.part("newData", in: isNumber)?.value == .snapshot(path("/b"), afterWrite: true))
    }

    @Test func errorsShowWhereTheyHappenAndStopTheirParent() throws {
        let rules = #"""
            {"rules": {"$id": {
              ".read": "data.child('n').val() > 3 || auth.token.nick.contains($id)"
            }}}
            """#
        let decision = try Self.simulate(
            rules,
            #"{"op": "read", "path": "/a", "auth": {"uid": "amy"}}"#,
            data: #"{"a": {"n": "text"}}"#
        )
        #expect(!decision.allowed)
        let entry = try #require(decision.trace.last)
        #expect(entry.outcome == .error("'>' cannot be applied to a string and a number"))
        let root = try #require(entry.evaluation)
        #expect(root.value == .error("'>' cannot be applied to a string and a number"))
        #expect(Self.part("data.child('n').val() > 3", in: root)?.value == root.value)
        #expect(Self.part("data.child('n').val()", in: root)?.value == .data(.string("text")))
        // `||` stops at the error: its right side never runs.
        #expect(Self.part("auth.token.nick.contains($id)", in: root)?.value == .notEvaluated)

        let other = try Self.simulate(
            #"{"rules": {"$id": {".read": "auth.token.nick.contains($id)"}}}"#,
            #"{"op": "read", "path": "/a", "auth": {"uid": "amy"}}"#
        )
        let call = try #require(other.trace.last?.evaluation)
        #expect(call.value == .error("no method 'contains' on null"))
        #expect(Self.part("auth.token.nick", in: call)?.value == .data(.null))
        // A method on a value without it fails before its argument is evaluated.
        #expect(Self.part("$id", in: call)?.value == .notEvaluated)
    }

    @Test func regularExpressionsAndStringsShowTheirResults() throws {
        let rules = #"""
            {"rules": {"$id": {".read": "auth.uid.matches(/^a.+$/) && ('u/' + $id).beginsWith('u/')"}}}
            """#
        let decision = try Self.simulate(rules, #"{"op": "read", "path": "/q", "auth": {"uid": "amy"}}"#)
        #expect(decision.allowed)
        let root = try #require(decision.trace.last?.evaluation)
        #expect(Self.part("auth.uid.matches(/^a.+$/)", in: root)?.value == .data(.bool(true)))
        #expect(Self.part("('u/' + $id)", in: root)?.value == .data(.string("u/q")))
        #expect(root.value.shown == "true")
    }

    /// A rule string with escapes and broken over lines: positions are those of the file.
    @Test func positionsFollowEscapesAndLines() throws {
        let rules = #"""
            {"rules": {
              ".read": "auth.uid == \"amy\" && data.exists()",
              ".write": "auth != null &&
                 newData.exists()"
            }}
            """#
        let read = try Self.simulate(rules, #"{"op": "read", "path": "/", "auth": {"uid": "amy"}}"#)
        let readRoot = try #require(read.trace.last?.evaluation)
        // `\"amy\"` is 7 characters in the file for 5 in the expression.
        #expect(Self.part("data.exists()", in: readRoot)?.position == SourcePosition(line: 2, column: 36))
        let write = try Self.simulate(rules, #"{"op": "write", "path": "/", "auth": {"uid": "amy"}, "value": 1}"#)
        let writeRoot = try #require(write.trace.last?.evaluation)
        #expect(Self.part("newData.exists()", in: writeRoot)?.position == SourcePosition(line: 4, column: 6))
        #expect(write.description.contains("auth != null && newData.exists() = true"))
    }

    @Test func aSimulationRecordsAtMostItsLimitAndSaysSo() throws {
        let rules = #"{"rules": {".write": true, "$k": {".validate": "newData.isNumber()"}}}"#
        let count = RuleSubexpression.limitPerSimulation  // two parts each: twice the limit
        let value = "{" + (0..<count).map { "\"k\($0)\": \($0)" }.joined(separator: ", ") + "}"
        let decision = try Self.simulate(rules, #"{"op": "update", "path": "/", "value": \#(value)}"#)
        #expect(decision.allowed)
        #expect(decision.evaluationTruncated)
        let validations = decision.trace.filter { $0.kind == .validate }
        #expect(validations.count == count)
        #expect(validations.filter { $0.evaluation != nil }.count == RuleSubexpression.limitPerSimulation / 2)
        #expect(validations.allSatisfy { $0.outcome == .true })
        #expect(decision.description.contains("values of some rules left out"))
        let small = try Self.simulate(rules, #"{"op": "write", "path": "/k", "value": 1}"#)
        #expect(!small.evaluationTruncated)
    }

    @Test func longValuesAreShortened() throws {
        let long = String(repeating: "x", count: 5000)
        let decision = try Self.simulate(
            #"{"rules": {".read": "data.val() != null"}}"#,
            #"{"op": "read", "path": "/"}"#,
            data: "\"\(long)\""
        )
        let val = try #require(Self.part("data.val()", in: decision.trace.last?.evaluation))
        #expect(val.value == .data(.string(String(repeating: "x", count: RuleSubexpression.maxStringLength) + "…")))
    }

    /// Only the simulator records: `hearth rules test`'s trace and ordinary decisions do not,
    /// and the expression decisions evaluate holds no mark at all.
    @Test func ordinaryDecisionsRecordNothing() throws {
        let rules = #"{"rules": {"$id": {".read": "auth != null && data.child('x').val() == $id"}}}"#
        let program = try RulesDocument.compiled(source: rules)
        let traced = program.canRead(
            path: path("/a"),
            auth: auth("amy"),
            root: RuleMemorySource(root: nil),
            now: 0,
            trace: true
        )
        #expect(traced.trace.count == 1)
        #expect(traced.trace.allSatisfy { $0.evaluation == nil })
        func marks(_ e: RuleExpression) -> Int {
            if case .recorded = e { return 1 + e.operands.reduce(0) { $0 + marks($1) } }
            return e.operands.reduce(0) { $0 + marks($1) }
        }
        func compiledRules(_ node: RuleNode) -> [CompiledRule] {
            [node.read, node.write, node.validate].compactMap { $0 } + node.children.values.flatMap(compiledRules)
                + (node.wildcard.map(compiledRules) ?? [])
        }
        let compiled = compiledRules(program.root)
        #expect(compiled.count == 1)
        for rule in compiled {
            #expect(marks(rule.expression) == 0)
            #expect(marks(rule.traced) == RuleSubexpression.count(rule.traced))
            // &&, auth != null, auth, ==, val(), child('x'), data, $id
            #expect(marks(rule.traced) == 8)
        }
    }

    /// Evaluating with the recorder gives every expression of the optimizer's table the outcome
    /// the optimized expression gives, and the root's value is that outcome.
    @Test(arguments: OptimizerTests.cases)
    func recordingKeepsEveryOutcome(_ testCase: OptimizerCase) throws {
        let syntax = try RuleParser.parse(Array(testCase.expression.unicodeScalars))
        let checker = RuleChecker(kind: testCase.kind, wildcards: ["$id"]) { _, _ in }
        let traced = checker.check(rule: syntax)
        let rule = CompiledRule(
            kind: testCase.kind,
            expression: traced,
            source: testCase.expression,
            rulePath: "/rules/items/$id/\(testCase.kind.rawValue)",
            position: SourcePosition(line: 1, column: 1),
            constant: nil
        )
        let current = RuleMemorySource(root: tree(expressionData))
        let target = path("/items/a")
        let newRoot = RuleOverlaySource(base: current, writes: [(target, tree(optimizerNewNode))])
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
                if known { evaluator.newNodeAtLocation = .known(tree(optimizerNewNode)) }
                var log = RuleTraceLog(recorder: RuleValueRecorder(limit: 10_000))
                let (_, entry) = log.run(rule, evaluator: evaluator)
                let context = "uid \(uid ?? "nil"), known new node \(known)"
                #expect(entry.outcome == evaluator.run(rule.expression), "\(context)")
                // Only a literal rule has nothing to show.
                #expect((entry.evaluation == nil) == (RuleSubexpression.count(rule.traced) == 0), "\(context)")
                guard let root = entry.evaluation else { continue }
                switch entry.outcome {
                case .true: #expect(root.value == .data(.bool(true)), "\(context)")
                case .false: #expect(root.value == .data(.bool(false)), "\(context)")
                case .error(let message): #expect(root.value == .error(message), "\(context)")
                }
            }
        }
    }
}
