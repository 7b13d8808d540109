import HearthCore
import HearthFuzzSupport
import HearthRules

/// A fixed rules set evaluated against data from the input: the first line is the path written, the
/// second the caller's uid (empty: signed out), the rest the JSON written. Reads and writes traced and
/// not must agree, and a read denied at a path is denied at its root-level ancestors too (no rule below
/// a denied location grants its parent).
enum RulesEvaluationFuzz {
    static let rules = """
        {"rules": {
          ".read": false,
          "users": {"$uid": {
            ".read": "auth != null",
            ".write": "auth != null && auth.uid == $uid && newData.exists()",
            ".validate": "newData.hasChildren(['name']) && newData.child('name').isString()",
            "name": {".validate": "newData.val().length >= 1 && newData.val().length <= 50 && !newData.val().matches(/^\\\\s+$/)"},
            "age": {".validate": "newData.isNumber() && newData.val() >= 0 && newData.val() < 200"},
            "email": {".validate": "newData.val().matches(/^[^@]+@[^@]+\\\\.[a-z]+$/i)"},
            "$other": {".validate": "(newData.val() + '').length < 100"}
          }},
          "chats": {"$chat": {
            ".read": "data.child('members').child(auth.uid).val() === true",
            ".write": "!data.exists() || data.child('members').hasChild(auth.uid)",
            "title": {".validate": "newData.isString() && newData.val().replace('x', 'y').toUpperCase().contains('') "},
            "count": {".validate": "newData.val() === data.val() + 1 || (!data.exists() && newData.val() === 1)"},
            "messages": {"$m": {
              ".validate": "newData.child('from').val() === auth.uid && newData.child('at').val() <= now && root.child('chats/' + $chat + '/members/' + auth.uid).exists()"
            }}
          }},
          "counter": {".read": true, ".write": "newData.isNumber() && newData.val() > data.val()"},
          "$anything": {".write": "auth.token.admin === true && newData.val() != 'no'", ".read": "query.limitToFirst <= 10"}
        }}
        """

    static let compiled = RulesDocument.compile(source: rules)

    static func prepare() {
        RulesFixture.prepare()
        if case .failure(let diagnostics) = compiled { fatalError("The fixed rules do not compile: \(diagnostics)") }
    }

    static let target = FuzzTarget(name: "rules-evaluation", prepare: { prepare() }) { input in
        guard case .success(let program) = compiled else { return }
        let lines = input.split(separator: 0x0A, maxSplits: 2, omittingEmptySubsequences: false)
        guard lines.count == 3 else { return }
        guard let path = try? DataPath.parse(String(decoding: lines[0], as: UTF8.self)) else { return }
        let uid = String(decoding: lines[1], as: UTF8.self)
        let auth = uid.isEmpty ? nil : RuleAuth(uid: uid, token: .object([("admin", .bool(uid == "admin"))]))
        guard let value = try? TreeParser.parse(Array(lines[2]), at: path) else { return }
        let root = RulesFixture.root
        let newRoot = RuleOverlaySource(base: root, writes: [(path: path, node: value.node)])
        let now = 1_700_000_000_000.0
        let write = program.canWrite(path: path, auth: auth, root: root, newRoot: newRoot, now: now)
        let traced = program.canWrite(path: path, auth: auth, root: root, newRoot: newRoot, now: now, trace: true)
        require(write.allowed == traced.allowed, "a traced write of \(path) decides otherwise")
        let read = program.canRead(path: path, auth: auth, root: newRoot, now: now)
        let tracedRead = program.canRead(path: path, auth: auth, root: newRoot, now: now, trace: true)
        require(read.allowed == tracedRead.allowed, "a traced read of \(path) decides otherwise")
        if let parent = path.parent, program.canRead(path: parent, auth: auth, root: newRoot, now: now).allowed {
            require(read.allowed, "reading \(path) is denied although its parent is readable (reads cascade)")
        }
    }
}
