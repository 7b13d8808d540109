public import HearthCore

/// One request to the rules simulator (`POST /.settings/rules:simulate`,
/// `hearth rules simulate`): would `auth` be allowed this read or write, and which rules ran?
///
///     {"op": "read" | "write" | "update", "path": "/a/b", "auth": null | {"uid": "alice", "token": {...}},
///      "value"?: ..., "query"?: {"orderByChild": "owner", "equalTo": "alice"}, "now"?: 1700000000000}
///
/// `value` is the data of a write (server values such as `{".sv": "timestamp"}` resolve at
/// `now`), or for an update an object of relative paths.
public struct RuleSimulation: Sendable {
    public enum Operation: String, Sendable {
        case read, write, update
    }

    public var operation: Operation
    public var path: DataPath
    public var auth: RuleAuth?
    public var value: JSONValue
    public var query: RuleQuery?
    /// The `now` of the rules; nil: the caller's clock.
    public var now: Double?

    public init(
        operation: Operation,
        path: DataPath,
        auth: RuleAuth? = nil,
        value: JSONValue = .null,
        query: RuleQuery? = nil,
        now: Double? = nil
    ) {
        self.operation = operation
        self.path = path
        self.auth = auth
        self.value = value
        self.query = query
        self.now = now
    }

    /// - Throws: `RuleInputError` naming the field that is missing or malformed.
    public init(json: JSONValue) throws(RuleInputError) {
        guard case .object = json else {
            throw RuleInputError(
                #"The simulation must be an object: {"op": "read", "path": "/a", "auth": {"uid": "alice"}}"#
            )
        }
        guard let op = json["op"]?.stringValue.flatMap(Operation.init(rawValue:)) else {
            throw RuleInputError(#"'op' must be "read", "write" or "update""#)
        }
        guard let pathText = json["path"]?.stringValue else {
            throw RuleInputError("'path' must be a string such as \"/users/alice\"")
        }
        let path: DataPath
        do {
            path = try DataPath.parse(pathText)
        } catch {
            throw RuleInputError("'path': \(error)")
        }
        var auth: RuleAuth?
        if let authJSON = json["auth"] {
            do {
                auth = try RuleAuth(json: authJSON)
            } catch {
                throw RuleInputError("'auth': \(error.message)")
            }
        }
        let query = try json["query"].map { (q: JSONValue) throws(RuleInputError) in try RuleQuery(json: q) }
        if op == .read, json["value"] != nil {
            throw RuleInputError("'value' is for a write or an update; a read has none")
        }
        if op == .update, case .object = json["value"] ?? .null {
        } else if op == .update {
            throw RuleInputError("'value' of an update must be an object of relative paths")
        }
        self.init(
            operation: op,
            path: path,
            auth: auth,
            value: json["value"] ?? .null,
            query: query,
            now: json["now"]?.numberValue
        )
    }

    /// The decision, with every rule that ran and the value of every part of each (up to
    /// `RuleSubexpression.limitPerSimulation` values), against the data of `root`.
    /// - Throws: `RuleInputError` for a `value` that is not valid data at its path.
    public func run(
        _ program: RuleProgram,
        root: some RuleDataSource,
        now clockNow: Double
    ) throws(RuleInputError)
        -> RuleDecision
    {
        let now = self.now ?? clockNow
        let log = RuleTraceLog(recorder: RuleValueRecorder(limit: RuleSubexpression.limitPerSimulation))
        switch operation {
        case .read:
            return program.canRead(path: path, auth: auth, root: root, now: now, query: query, tracing: log)
        case .write, .update:
            var writes: [(path: DataPath, node: Node?)] = []
            if operation == .write {
                writes = [(path, try Self.node(value, at: path, root: root, now: now))]
            } else if case .object(let members) = value {
                for (key, member) in members {
                    let target: DataPath
                    do {
                        target = path.appending(try DataPath.parse(key))
                    } catch {
                        throw RuleInputError("update key '\(key)': \(error)")
                    }
                    writes.append((target, try Self.node(member, at: target, root: root, now: now)))
                }
            }
            return program.canWrite(
                path: path,
                auth: auth,
                root: root,
                newRoot: RuleOverlaySource(base: root, writes: writes),
                now: now,
                changedPaths: writes.map(\.path),
                tracing: log
            )
        }
    }

    /// The node a write of `json` at `path` stores, with server values resolved at `now`.
    private static func node(
        _ json: JSONValue,
        at path: DataPath,
        root: some RuleDataSource,
        now: Double
    )
        throws(RuleInputError) -> Node?
    {
        do {
            let parsed = try TreeParser.parse(JSONText.render(json), at: path)
            return ServerValueResolver.resolve(parsed, now: now) { relative in
                root.node(at: path.appending(relative))
            }
        } catch {
            throw RuleInputError("'value' at \(path): \(error)")
        }
    }
}
