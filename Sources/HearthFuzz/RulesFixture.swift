import HearthCore
import HearthFuzzSupport
import HearthRules

/// What the rules targets evaluate against: a small database, two callers and a few paths.
enum RulesFixture {
    static let data: Node? = {
        let json = """
            {"users": {"alice": {"name": "Alice", "age": 30, "email": "alice@example.com", ".priority": 1},
                       "bob": {"name": "Bob", "tags": ["a", "b"]}},
             "chats": {"c1": {"members": {"alice": true}, "title": "hi", "count": 2}},
             "counter": 5, "flag": true}
            """
        return try? TreeParser.parse(json, at: .root).node
    }()

    static let root = RuleMemorySource(root: data)

    static let callers: [RuleAuth?] = [
        nil,
        RuleAuth(
            uid: "alice",
            token: .object([("email", .string("alice@example.com")), ("admin", .bool(true))])
        ),
    ]

    static let paths: [DataPath] = [
        "/", "/users", "/users/alice", "/users/bob/name", "/chats/c1/messages/m1", "/counter",
    ].compactMap { try? DataPath.parse($0) }

    static let written: Node? = try? TreeParser.parse(
        #"{"name": "Zed", "age": 7, "members": {"alice": true}}"#,
        at: .root
    ).node

    static func prepare() {
        _ = (data, root, callers, paths, written)
    }

    /// Evaluates `program` for every caller and path: reads and writes, traced and not, which must agree.
    static func exercise(_ program: RuleProgram) {
        for auth in callers {
            for path in paths {
                let read = program.canRead(path: path, auth: auth, root: root, now: 1_700_000_000_000)
                let tracedRead = program.canRead(
                    path: path,
                    auth: auth,
                    root: root,
                    now: 1_700_000_000_000,
                    trace: true
                )
                require(read.allowed == tracedRead.allowed, "a traced read of \(path) decides otherwise")
                let newRoot = RuleOverlaySource(base: root, writes: [(path: path, node: written)])
                let write = program.canWrite(
                    path: path,
                    auth: auth,
                    root: root,
                    newRoot: newRoot,
                    now: 1_700_000_000_000
                )
                let tracedWrite = program.canWrite(
                    path: path,
                    auth: auth,
                    root: root,
                    newRoot: newRoot,
                    now: 1_700_000_000_000,
                    trace: true
                )
                require(write.allowed == tracedWrite.allowed, "a traced write of \(path) decides otherwise")
            }
        }
    }
}
