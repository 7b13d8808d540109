public import HearthCore
public import HearthProtocol
import HearthStore

extension Write {
    /// The store write for a protocol write: a put (a priority put becomes a set of
    /// `path/.priority`; a transaction hash becomes `ifMatch`, the SDK's `""` for null being the
    /// store's `null_etag`) or a merge (each entry a relative path, `.priority` entries included).
    public init(request: WriteRequest) {
        switch request {
        case .set(let put):
            let path = put.isPriority ? put.path.child(ChildKey(".priority")) : put.path
            self.init(.set(path, put.value), ifMatch: put.hash.map(Write.storeETag(forClientHash:)))
        case .merge(let merge):
            let entries = merge.entries.map { entry in
                UpdateEntry(
                    path: entry.isPriority ? entry.path.child(ChildKey(".priority")) : entry.path,
                    value: entry.value
                )
            }
            self.init(.update(merge.path, entries))
        }
    }

    /// The store's ETag for a hash the SDK sent: the same text, except `""` (the SDK's hash of
    /// null), which is the store's `null_etag`.
    public static func storeETag(forClientHash hash: String) -> String {
        hash.isEmpty ? "null_etag" : hash
    }
}
