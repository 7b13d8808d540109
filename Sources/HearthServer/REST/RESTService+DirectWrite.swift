import HTTPTypes
import HearthCore
import HearthDatabase

extension RESTService {
    /// A plain REST write decided on the connection's event loop (`DirectRESTWriteHandler`):
    /// everything `handle(_:)` would check has passed, the write is built, and only the writer
    /// is left to ask.
    struct DirectWrite {
        let namespace: String
        let engine: NamespaceEngine
        let write: Write
        let caller: Caller
        /// A `POST`'s new child's name.
        let pushID: String?
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
        var pushID: String?
        switch method {
        case .post:
            let id = CoreBridge.nextPushID()
            let child = path.child(ChildKey(id))
            guard !engine.deniesEveryWrite(at: child, as: caller),
                let value = try? CoreBridge.parseValue(body, at: child)
            else { return nil }
            operation = .set(child, value)
            pushID = id
        case .put:
            guard !engine.deniesEveryWrite(at: path, as: caller), let value = try? CoreBridge.parseValue(body, at: path)
            else { return nil }
            operation = .set(path, value)
        case .delete:
            // As the router: no early refusal (nothing to spare reading), the body ignored.
            operation = .set(path, .null)
        default:
            guard let entries = try? CoreBridge.parseUpdate(body, at: path) else { return nil }
            operation = .update(path, entries)
        }
        return DirectWrite(
            namespace: options.namespace,
            engine: engine,
            write: Write(operation),
            caller: caller,
            pushID: pushID,
            print: options.print
        )
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
