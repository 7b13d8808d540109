import HearthCore

extension ClientAction {
    /// The body members action `name` reads; other members are checked for syntax and ignored.
    static func members(read name: String) -> [String] {
        switch name {
        case "q", "l": return BodyMembers.listen
        case "n", "u": return BodyMembers.unlisten
        case "p", "o": return BodyMembers.put
        case "m", "om": return BodyMembers.merge
        case "oc": return BodyMembers.path
        case "auth", "gauth": return BodyMembers.auth
        case "s": return BodyMembers.stats
        case "g": return BodyMembers.get
        case "appcheck": return BodyMembers.appCheck
        default: return []
        }
    }

    /// The member lists, built once (a message is parsed on every request).
    private enum BodyMembers {
        static let listen = ["p", "q", "t", "h"]
        static let unlisten = ["p", "q", "t"]
        static let put = ["p", "d", "h"]
        static let merge = ["p", "d"]
        static let path = ["p"]
        static let auth = ["cred", "noauth", "authvar"]
        static let stats = ["c"]
        static let get = ["p", "q"]
        static let appCheck = ["token"]
    }

    /// Parses the body of action `name`.
    /// - Throws: `ProtocolError` (`.invalidRequest`) or `CoreError` for a bad path or data;
    ///   `CoreError.invalidJSON` when a part is not JSON.
    static func parse(_ name: String, body: RawJSONObject) throws -> ClientAction {
        try body.validateOthers(except: members(read: name))
        switch name {
        case "q", "l":
            let path = try readPath(body)
            return .listen(
                ListenRequest(
                    path: path,
                    query: try QueryObject.query(from: body.value(of: "q")),
                    tag: try readTag(body),
                    hash: try readString(body, "h")
                )
            )
        case "n", "u":
            let path = try readPath(body)
            return .unlisten(
                UnlistenRequest(
                    path: path,
                    query: try QueryObject.query(from: body.value(of: "q")),
                    tag: try readTag(body)
                )
            )
        case "p":
            return .put(try readPut(body))
        case "m":
            return .merge(try readMerge(body))
        case "o":
            var put = try readPut(body)
            put.hash = nil
            return .onDisconnectPut(put)
        case "om":
            return .onDisconnectMerge(try readMerge(body))
        case "oc":
            return .onDisconnectCancel(try readPath(body))
        case "auth", "gauth":
            guard let credential = try readString(body, "cred") else {
                throw ProtocolError.invalid(
                    "Invalid \(name) request: the credential 'cred' is missing or not a string."
                )
            }
            var override: AuthRequest.Override?
            if try body.value(of: "noauth") == .bool(true) {
                override = .unauthenticated
            } else if let variable = try body.value(of: "authvar"), variable != .null {
                override = .authVariable(variable)
            }
            return .authenticate(
                AuthRequest(
                    credential: credential,
                    kind: name == "auth" ? .firebaseToken : .googleCredential,
                    override: override
                )
            )
        case "unauth":
            return .unauthenticate
        case "s":
            return .stats(try body.value(of: "c") ?? .object([]))
        case "g":
            let path = try readPath(body)
            return .get(GetRequest(path: path, query: try QueryObject.query(from: body.value(of: "q"))))
        case "appcheck":
            return .appCheck(token: try readString(body, "token") ?? "")
        case "unappeck":
            return .appCheckRemoved
        default:
            throw ProtocolError.invalid(
                "Unknown action '\(name.prefix(40))'; accepted are q, n, p, m, o, om, oc, auth, gauth, unauth, s and g."
            )
        }
    }

    // MARK: Members

    static func readPath(_ body: RawJSONObject) throws -> DataPath {
        try readWritePath(body, allowPriority: false).path
    }

    static func readWritePath(_ body: RawJSONObject, allowPriority: Bool) throws -> (path: DataPath, isPriority: Bool) {
        let member = try explainingSurrogates(in: body.range(of: "p").map(body.slice) ?? [], part: .path) {
            try body.value(of: "p")
        }
        guard case .string(let text)? = member else {
            throw ProtocolError.invalid("Invalid request: the path 'p' is missing or not a string.")
        }
        if allowPriority { return try DataPath.parseWritePath(text) }
        return (try DataPath.parse(text), false)
    }

    static func readString(_ body: RawJSONObject, _ member: String) throws -> String? {
        switch try body.value(of: member) {
        case nil, .null?: return nil
        case .string(let s)?: return s
        case let other?:
            throw ProtocolError.invalid(
                "Invalid request member '\(member)': \(QueryObject.describe(other)); expected a string."
            )
        }
    }

    static func readTag(_ body: RawJSONObject) throws -> Int64? {
        switch try body.value(of: "t") {
        case nil, .null?: return nil
        case .number(let n)? where n.rounded() == n && abs(n) < 9.0e15: return Int64(n)
        case let other?:
            throw ProtocolError.invalid(
                "Invalid query tag 't': \(QueryObject.describe(other)); expected a whole number."
            )
        }
    }

    static func readPut(_ body: RawJSONObject) throws -> PutRequest {
        let (path, isPriority) = try readWritePath(body, allowPriority: true)
        guard let range = body.range(of: "d") else {
            throw ProtocolError.invalid("Invalid request: the data 'd' is missing.")
        }
        let value = try explainingSurrogates(in: body.slice(range), part: .data(path)) {
            try TreeParser.parse(body.slice(range), at: path)
        }
        if isPriority, case .children? = value.node {
            throw ProtocolError.invalid(
                "Invalid priority at '\(path)/.priority': a priority must be a number, a string or null."
            )
        }
        return PutRequest(path: path, isPriority: isPriority, value: value, hash: try readString(body, "h"))
    }

    static func readMerge(_ body: RawJSONObject) throws -> MergeRequest {
        let path = try readPath(body)
        guard let range = body.range(of: "d") else {
            throw ProtocolError.invalid("Invalid request: the data 'd' is missing.")
        }
        guard body.bytes[range].first == UInt8(ascii: "{") else {
            throw ProtocolError.invalid(
                "Invalid update at '\(path)': the data must be an object of child paths and values."
            )
        }
        let members = try explainingSurrogates(in: body.slice(range), part: .update(path)) {
            try RawJSONObject(body.bytes, range: range)
        }
        return try TreeParser.parsingMany { parse in
            try readMergeEntries(members, at: path, parse: parse)
        }
    }

    private static func readMergeEntries(
        _ members: RawJSONObject,
        at path: DataPath,
        parse: (ArraySlice<UInt8>, DataPath) throws -> NewValue
    ) throws -> MergeRequest {
        var entries: [MergeEntry] = []
        entries.reserveCapacity(members.members.count)
        for member in members.members {
            let (relative, isPriority) = try DataPath.parseWritePath(member.key)
            if relative.isRoot && !isPriority {
                throw ProtocolError.invalid(
                    "Invalid update at '\(path)': the key '\(member.key.prefix(100))' names no child."
                )
            }
            let full = path.appending(relative)
            if full.depth > KeyValidator.maxDepth {
                throw ProtocolError.invalid(
                    "Invalid path '\(String(describing: full).prefix(300))': data can be nested at most 32 levels deep."
                )
            }
            let value = try explainingSurrogates(in: members.slice(member.value), part: .data(full)) {
                try parse(members.slice(member.value), full)
            }
            entries.append(MergeEntry(path: relative, isPriority: isPriority, value: value))
        }
        try checkNoOverlap(entries, at: path)
        return MergeRequest(path: path, entries: entries)
    }

    /// Runs `parse` over one part of a request (`bytes`); an unpaired surrogate escape it meets
    /// becomes an error naming the string that holds it (the scanner's message when it cannot
    /// be found again). Searched only after the parse failed: nothing on the fast path.
    static func explainingSurrogates<T>(
        in bytes: @autoclosure () -> ArraySlice<UInt8>,
        part: UnpairedSurrogate.Part,
        _ parse: () throws -> T
    ) throws -> T {
        do {
            return try parse()
        } catch let error as CoreError where error.code == .unpairedSurrogate {
            guard let found = UnpairedSurrogate.find(in: bytes()) else { throw ProtocolError.invalid(error.message) }
            throw ProtocolError.invalid(found.message(in: part))
        }
    }

    /// Firebase refuses an update where one path contains another (`a` and `a/b`, or `a` and
    /// `a/.priority`), as the SDK's `validateFirebaseMergePaths` does.
    static func checkNoOverlap(_ entries: [MergeEntry], at path: DataPath) throws {
        guard entries.count > 1, mayOverlap(entries) else { return }
        let paths = entries.map { $0.isPriority ? $0.path.child(ChildKey(".priority")) : $0.path }.sorted()
        for i in 1..<paths.count where paths[i - 1].contains(paths[i]) {
            throw ProtocolError.invalid(
                "Invalid update at '\(path)': the path '\(paths[i])' is inside '\(paths[i - 1])', which is also being set."
            )
        }
    }

    /// False when no entry's path contains another's, told cheaply: each path's keys, each
    /// followed by a 0 byte (which no key holds), so that one path contains another exactly
    /// when its bytes are a prefix of the other's, and in byte order such a pair is adjacent
    /// somewhere. Sorting these bytes costs a fraction of sorting the paths (a chat message's
    /// fan-out is hundreds of them); `checkNoOverlap` names the pair the usual way.
    static func mayOverlap(_ entries: [MergeEntry]) -> Bool {
        var spelled: [[UInt8]] = []
        spelled.reserveCapacity(entries.count)
        for entry in entries {
            var bytes: [UInt8] = []
            for key in entry.path.keys {
                bytes.append(contentsOf: key.string.utf8)
                bytes.append(0)
            }
            if entry.isPriority { bytes.append(contentsOf: ".priority\0".utf8) }
            spelled.append(bytes)
        }
        spelled.sort(by: precedes)
        for (a, b) in zip(spelled, spelled.dropFirst()) where a.count <= b.count && startsWith(b, a) { return true }
        return false
    }

    /// Byte order, compared through raw pointers (the generic comparison is several times slower).
    private static func precedes(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        a.withUnsafeBufferPointer { a in
            b.withUnsafeBufferPointer { b in
                let n = min(a.count, b.count)
                var i = 0
                while i < n {
                    if a[i] != b[i] { return a[i] < b[i] }
                    i &+= 1
                }
                return a.count < b.count
            }
        }
    }

    private static func startsWith(_ bytes: [UInt8], _ prefix: [UInt8]) -> Bool {
        bytes.withUnsafeBufferPointer { bytes in
            prefix.withUnsafeBufferPointer { prefix in
                var i = 0
                while i < prefix.count {
                    if bytes[i] != prefix[i] { return false }
                    i &+= 1
                }
                return true
            }
        }
    }
}
