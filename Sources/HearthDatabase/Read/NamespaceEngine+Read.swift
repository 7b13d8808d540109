import HearthCore
import HearthStore

extension NamespaceEngine {
    /// Reads what `request` asks for in one snapshot, judged by the rules in that snapshot (a
    /// query is judged as the query; a shallow or priority read as a read of the node).
    /// - Throws: `StoreError` `.permissionDenied` when the rules refuse `caller` the read,
    ///   `.indexNotDefined` for an ordered query the rules give no index for.
    public func read(_ request: ReadRequest, as caller: Caller) async throws -> ReadResult {
        let (rules, activity) = (self.rules, self.activity)
        return try await store.read { reader in
            let path = request.path
            var query: Query?
            if case .value(let selected) = request.selection { query = selected }
            guard rules.canRead(caller, path: path, query: query, reader: reader) else {
                activity.refused(.read)
                throw StoreError.permissionDenied
            }
            let wantsETag = request.wantsETag || request.ifNoneMatch != nil
            let etag = wantsETag ? reader.etag(at: path) : nil
            if let ifNoneMatch = request.ifNoneMatch, let etag, ifNoneMatch == etag {
                return .notModified(etag: etag)
            }
            switch request.selection {
            case .priority:
                return .found(.priority(reader.node(at: path)?.priority), etag: etag)
            case .shallow(let startAfter, let limit):
                return .found(.shallow(reader.shallow(at: path, startAfter: startAfter, limit: limit)), etag: etag)
            case .value(let query?):
                let selected = try reader.query(at: path, query)
                guard !selected.isEmpty else { return .found(.json(Array("{}".utf8)), etag: etag) }
                let children = Children(unsorted: selected.map { ($0.key, $0.node) })
                var body: [UInt8] = []
                JSONRenderer.render(.children(children, priority: nil), format: request.format, into: &body)
                return .found(.json(body), etag: etag)
            case .value(nil):
                var body: [UInt8] = []
                reader.renderJSON(at: path, format: request.format, into: &body)
                return .found(.json(body), etag: etag)
            }
        }
    }
}
