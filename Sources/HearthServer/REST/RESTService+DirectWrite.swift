import HTTPTypes
import HearthCore
import HearthDatabase

extension RESTService {
    /// A plain REST write decided on the connection's event loop (`DirectRESTWriteHandler`):
    /// everything `handle(_:)` would check has passed, the write is built, and only the writer
    /// is left to ask.
    struct DirectWrite {
        enum Answer {
            /// `POST`: the new child's name.
            case pushID(String)
            /// `PUT` and `DELETE`: the value written.
            case value
            /// `PATCH`: the patch, keyed as sent.
            case patch([UpdateEntry])
        }

        let engine: NamespaceEngine
        let write: Write
        let caller: Caller
        let answer: Answer
        let print: RESTOptions.PrintMode
    }

    /// The write of a `PUT`, `POST`, `PATCH` or `DELETE` of a `.json` path, when it is one that `handle(_:)`
    /// would write with nothing to wait for but the writer: no option but `ns`, `auth` and
    /// `print`, a credential that resolves, an open namespace with its rules, a path and a body
    /// that parse, and rules that do not deny it before its data is read. Nil for anything
    /// else, every error included: the router then handles the request as it always has, and
    /// answers it. Deciding changes nothing.
    func directWrite(
        method: HTTPRequest.Method,
        path rawPath: Substring,
        query: Substring?,
        authorization: String?,
        body: [UInt8]
    ) -> DirectWrite? {
        guard method == .put || method == .post || method == .patch || method == .delete,
            Self.isPlainDataPath(rawPath),
            let parsedQuery = try? QueryString(query), let options = try? RESTOptions.parse(parsedQuery),
            options.hasOnlyWriteBasics,
            let credential = try? credentials.resolve(queryAuth: options.auth, authorization: authorization),
            let decoded = try? Self.decodePath(String(rawPath)),
            let (path, isPriority) = try? CoreBridge.parseWritePath(decoded), !isPriority
        else { return nil }
        // Made once: a user's is built from the token's claims.
        let caller = credential.caller
        guard let engine = database.openedEngine(options.namespace, as: caller) else { return nil }
        let operation: Write.Operation
        let answer: DirectWrite.Answer
        switch method {
        case .post:
            let pushID = CoreBridge.nextPushID()
            let child = path.child(ChildKey(pushID))
            guard !engine.deniesEveryWrite(at: child, as: caller),
                let value = try? CoreBridge.parseValue(body, at: child)
            else { return nil }
            operation = .set(child, value)
            answer = .pushID(pushID)
        case .put:
            guard !engine.deniesEveryWrite(at: path, as: caller), let value = try? CoreBridge.parseValue(body, at: path)
            else { return nil }
            operation = .set(path, value)
            answer = .value
        case .delete:
            // As the router: no early refusal (nothing to spare reading), the body ignored.
            operation = .set(path, .null)
            answer = .value
        default:
            guard let entries = try? CoreBridge.parseUpdate(body, at: path) else { return nil }
            operation = .update(path, entries)
            answer = .patch(entries)
        }
        return DirectWrite(
            engine: engine,
            write: Write(operation),
            caller: caller,
            answer: answer,
            print: options.print
        )
    }

    /// The body `write(_:path:isPriority:body:pushID:in:)` answers a committed write with.
    static func directAnswer(_ write: DirectWrite, values: [Node?]) -> [UInt8] {
        var bytes: [UInt8] = []
        switch write.answer {
        case .pushID(let pushID):
            bytes.append(contentsOf: "{\"name\":\(JSONText.quoted(pushID))}".utf8)
        case .value:
            CoreBridge.render(values.first ?? nil, format: .plain, into: &bytes)
        case .patch(let entries):
            renderPatch(entries: entries, values: values, format: .plain, into: &bytes)
        }
        return bytes
    }

    /// A `.json` path naming data: none of the server's own paths (they all hold a `.` before
    /// the suffix, as no data key can) and no `.priority`.
    static func isPlainDataPath(_ rawPath: Substring) -> Bool {
        guard rawPath.hasSuffix(".json") else { return false }
        return !rawPath.utf8.dropLast(5).contains(UInt8(ascii: "."))
    }
}

extension RESTOptions {
    /// Whether the options are at most `ns`, `auth` and `print`: what a plain write sends.
    var hasOnlyWriteBasics: Bool {
        shallow == nil && format == .plain && query == nil && timeout == nil && writeSizeLimit == nil
            && methodOverride == nil && authVariableOverride == nil && callback == nil && download == nil
    }
}
