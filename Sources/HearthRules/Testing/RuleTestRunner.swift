public import HearthCore

/// Runs a rules test file (the format `hearth rules test` reads; see docs/rules.md):
///
///     {"rules": {"rules": {...}} | "path/to/rules.json",
///      "data": {...}, "auth": null, "now": 1700000000000,        // defaults for every case
///      "cases": [{"name": "...", "op": "read" | "write" | "update", "path": "/a/b",
///                 "data"?: ..., "auth"?: {"uid": "alice"}, "now"?: ..., "value"?: ...,
///                 "query"?: {"orderByChild": "owner", "equalTo": "alice"},
///                 "expected": "allow" | "deny"}]}
public struct RuleTestRunner {
    /// Reads a rules file named in a test file (the CLI passes a file reader; the path is as written).
    public var readFile: (String) throws -> String

    public init(readFile: @escaping (String) throws -> String) {
        self.readFile = readFile
    }

    /// The result of one case.
    public typealias CaseResult = RuleTestCaseResult<RuleDecision>

    /// Every case's result, in file order.
    public typealias Report = RuleTestReport<RuleDecision>

    /// Why a test file cannot run: malformed JSON or case, or rules that do not compile.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        public let message: String
        public let diagnostics: RulesDiagnostics?
        public var description: String { diagnostics.map { "\(message)\n\($0)" } ?? message }
    }

    /// Runs every case of a test file.
    /// - Throws: `Failure` when the file, a case or the rules are invalid.
    public func run(testFile text: String, fileName: String = "rules.test.json") throws(Failure) -> Report {
        // Read as rules files are (comments, rule strings over several lines), so that rules
        // can be pasted inline as they are.
        let document: JSONValue
        do {
            document = try RulesJSONParser.parse(text).jsonValue
        } catch {
            throw Failure(
                message: Message.testFile("\(fileName):\(error.position): \(error.message)"),
                diagnostics: nil
            )
        }
        let program = try rules(document["rules"], fileName: fileName)
        guard let cases = document["cases"]?.arrayValue else {
            throw Failure(message: Message.testFile("'cases' must be an array"), diagnostics: nil)
        }
        var results: [CaseResult] = []
        for (i, testCase) in cases.enumerated() {
            do {
                results.append(try RuleTestCase(json: testCase, defaults: document, index: i).run(program))
            } catch {
                throw Failure(message: Message.testFile("case \(i + 1): \(error.message)"), diagnostics: nil)
            }
        }
        return Report(results: results)
    }

    private func rules(_ value: JSONValue?, fileName: String) throws(Failure) -> RuleProgram {
        let source: String
        let rulesName: String
        switch value {
        case .string(let path)?:
            do {
                source = try readFile(path)
            } catch {
                throw Failure(message: Message.testFile("cannot read rules file '\(path)': \(error)"), diagnostics: nil)
            }
            rulesName = path
        case .object?:
            source = JSONText.render(value!)
            rulesName = fileName + "#rules"
        default:
            throw Failure(
                message: Message.testFile("'rules' must be a rules document or a file path"),
                diagnostics: nil
            )
        }
        switch RulesDocument.compile(source: source, fileName: rulesName) {
        case .success(let program): return program
        case .failure(let diagnostics):
            throw Failure(message: Message.testFile("the rules do not compile"), diagnostics: diagnostics)
        }
    }
}

/// One case of a test file, ready to run.
public struct RuleTestCase: Sendable {
    public enum Operation: String, Sendable {
        case read, write, update
    }

    public var name: String
    public var data: Node?
    public var auth: RuleAuth?
    public var now: Double
    public var operation: Operation
    public var path: DataPath
    public var value: JSONValue
    public var query: RuleQuery?
    public var expectAllow: Bool

    /// Reads a case; missing `data`, `auth` and `now` come from `defaults` (the file's top level).
    public init(json: JSONValue, defaults: JSONValue = .object([]), index: Int = 0) throws(RuleInputError) {
        guard case .object = json else { throw RuleInputError("a case must be an object") }
        name = json["name"]?.stringValue ?? "case \(index + 1)"
        let dataJSON = json["data"] ?? defaults["data"] ?? .null
        do {
            data = try TreeParser.parse(JSONText.render(dataJSON), at: .root).node
        } catch {
            throw RuleInputError("'data' of '\(name)': \(error)")
        }
        auth = try RuleAuth(json: json["auth"] ?? defaults["auth"] ?? .null)
        now = (json["now"] ?? defaults["now"])?.numberValue ?? 1_700_000_000_000
        guard let op = json["op"]?.stringValue.flatMap(Operation.init(rawValue:)) else {
            throw RuleInputError("'op' of '\(name)' must be \"read\", \"write\" or \"update\"")
        }
        operation = op
        guard let pathText = json["path"]?.stringValue else {
            throw RuleInputError("'path' of '\(name)' must be a string")
        }
        do {
            path = try DataPath.parse(pathText)
        } catch {
            throw RuleInputError("'path' of '\(name)': \(error)")
        }
        value = json["value"] ?? .null
        query = try json["query"].map { (q: JSONValue) throws(RuleInputError) in try RuleQuery(json: q) }
        switch json["expected"]?.stringValue {
        case "allow": expectAllow = true
        case "deny": expectAllow = false
        default: throw RuleInputError("'expected' of '\(name)' must be \"allow\" or \"deny\"")
        }
    }

    /// Evaluates the case (with tracing).
    public func run(_ program: RuleProgram) throws(RuleInputError) -> RuleTestRunner.CaseResult {
        let current = RuleMemorySource(root: data)
        let decision: RuleDecision
        switch operation {
        case .read:
            decision = program.canRead(path: path, auth: auth, root: current, now: now, query: query, trace: true)
        case .write, .update:
            var writes: [(path: DataPath, node: Node?)] = []
            if operation == .write {
                writes = [(path, try node(value, at: path, current: current))]
            } else {
                guard case .object(let members) = value else {
                    throw RuleInputError("'value' of update '\(name)' must be an object of relative paths")
                }
                for (key, member) in members {
                    let target: DataPath
                    do {
                        target = path.appending(try DataPath.parse(key))
                    } catch {
                        throw RuleInputError("update key '\(key)' of '\(name)': \(error)")
                    }
                    writes.append((target, try node(member, at: target, current: current)))
                }
            }
            let newRoot = RuleOverlaySource(base: current, writes: writes)
            decision = program.canWrite(
                path: path,
                auth: auth,
                root: current,
                newRoot: newRoot,
                now: now,
                changedPaths: writes.map(\.path),
                trace: true
            )
        }
        return RuleTestRunner.CaseResult(name: name, expectedAllow: expectAllow, decision: decision)
    }

    /// The node a write of `json` at `path` stores, with server values resolved at `now`.
    private func node(_ json: JSONValue, at path: DataPath, current: RuleMemorySource) throws(RuleInputError) -> Node? {
        do {
            let parsed = try TreeParser.parse(JSONText.render(json), at: path)
            return ServerValueResolver.resolve(parsed, now: now) { relative in
                current.node(at: path.appending(relative))
            }
        } catch {
            throw RuleInputError("'value' of '\(name)': \(error)")
        }
    }
}

/// Renders a `JSONValue` as JSON text.
enum JSONText {
    static func render(_ value: JSONValue) -> String {
        var out: [UInt8] = []
        append(value, into: &out, indent: 0)
        return String(decoding: out, as: UTF8.self)
    }

    private static func append(_ value: JSONValue, into out: inout [UInt8], indent: Int) {
        switch value {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let b): out.append(contentsOf: (b ? "true" : "false").utf8)
        case .number(let n): JSONRenderer.appendNumber(n, into: &out)
        case .string(let s): JSONRenderer.appendString(s, into: &out)
        case .array(let elements):
            out.append(UInt8(ascii: "["))
            for (i, element) in elements.enumerated() {
                if i > 0 { out.append(contentsOf: ", ".utf8) }
                append(element, into: &out, indent: indent)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            if members.isEmpty {
                out.append(contentsOf: "{}".utf8)
                return
            }
            out.append(contentsOf: "{\n".utf8)
            for (i, (key, member)) in members.enumerated() {
                out.append(contentsOf: String(repeating: "  ", count: indent + 1).utf8)
                JSONRenderer.appendString(key, into: &out)
                out.append(contentsOf: ": ".utf8)
                append(member, into: &out, indent: indent + 1)
                out.append(contentsOf: (i == members.count - 1 ? "\n" : ",\n").utf8)
            }
            out.append(contentsOf: String(repeating: "  ", count: indent).utf8)
            out.append(UInt8(ascii: "}"))
        }
    }
}
