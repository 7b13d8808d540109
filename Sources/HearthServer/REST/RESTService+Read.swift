import HearthCore
import HearthDatabase
import HearthStore
import Hummingbird

extension RESTService {
    /// What one snapshot read produced.
    private struct ReadOutcome: Sendable {
        var body: [UInt8]
        var etag: String?
        var notModified: Bool
    }

    /// `GET`: the value, a shallow listing, or a query's selected children.
    /// The rules judge the read in the snapshot it reads (`.priority` as a read of its node).
    func read(
        _ call: Call,
        path: DataPath,
        isPriority: Bool,
        in namespace: NamespaceStore,
        rules: NamespaceRules
    ) async throws -> Response {
        let options = call.options
        let wantsETag = call.wantsETag || call.ifNoneMatch != nil
        let ifNoneMatch = call.ifNoneMatch
        let caller = call.caller
        let work: @Sendable () async throws -> ReadOutcome = {
            try await namespace.read { reader in
                let query = isPriority || options.shallow != nil ? nil : options.query
                guard rules.canRead(caller, path: path, query: query, reader: reader) else {
                    throw RESTError.permissionDenied
                }
                let etag = wantsETag ? reader.etag(at: path) : nil
                if let ifNoneMatch, let etag, ifNoneMatch == etag {
                    return ReadOutcome(body: [], etag: etag, notModified: true)
                }
                var body: [UInt8] = []
                if isPriority {
                    Self.renderPriority(reader.node(at: path)?.priority, into: &body)
                } else if let shallow = options.shallow {
                    Self.renderShallow(
                        reader.shallow(at: path, startAfter: shallow.startAfter, limit: shallow.limit),
                        into: &body
                    )
                } else if let query = options.query {
                    let selected = try reader.query(at: path, query)
                    if selected.isEmpty {
                        body.append(contentsOf: "{}".utf8)
                    } else {
                        let children = Children(unsorted: selected.map { ($0.key, $0.node) })
                        CoreBridge.render(.children(children, priority: nil), format: options.format, into: &body)
                    }
                } else {
                    reader.renderJSON(at: path, format: options.format, into: &body)
                }
                return ReadOutcome(body: body, etag: etag, notModified: false)
            }
        }
        let outcome = try await Self.withTimeout(options.timeout, work)
        if outcome.notModified, let etag = outcome.etag { return ResponseBuilder.notModified(etag: etag) }
        return ResponseBuilder.json(outcome.body, print: options.print, etag: call.wantsETag ? outcome.etag : nil)
    }

    static func renderPriority(_ priority: Priority?, into body: inout [UInt8]) {
        switch priority {
        case nil: body.append(contentsOf: "null".utf8)
        case .number(let n)?: CoreBridge.render(.leaf(.number(n), priority: nil), format: .plain, into: &body)
        case .string(let s)?: body.append(contentsOf: JSONText.quoted(s).utf8)
        }
    }

    /// Shallow JSON: leaf children by value, other children as `true`.
    static func renderShallow(_ result: ShallowResult, into body: inout [UInt8]) {
        switch result {
        case .null:
            body.append(contentsOf: "null".utf8)
        case .leaf(let value):
            CoreBridge.render(.leaf(value, priority: nil), format: .plain, into: &body)
        case .children(let children):
            body.append(UInt8(ascii: "{"))
            for (index, child) in children.enumerated() {
                if index > 0 { body.append(UInt8(ascii: ",")) }
                body.append(contentsOf: JSONText.quoted(child.key.string).utf8)
                body.append(UInt8(ascii: ":"))
                CoreBridge.render(.leaf(child.leaf ?? .bool(true), priority: nil), format: .plain, into: &body)
            }
            body.append(UInt8(ascii: "}"))
        }
    }

    /// Runs `work`, failing with 400 when a `timeout` is set and passes first.
    static func withTimeout<T: Sendable>(
        _ timeout: Duration?,
        _ work: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        guard let timeout else { return try await work() }
        return try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { try await work() }
            group.addTask {
                try await Task.sleep(for: timeout)
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let value = first else {
                throw RESTError.badRequest("The read did not finish within the timeout of \(timeout).")
            }
            return value
        }
    }
}
