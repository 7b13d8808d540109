public import HearthCore
import HearthStore

extension Caller {
    /// Who a write of this caller is by, as triggers see it (`TreeChange.author`).
    public var writeAuthor: WriteAuthor {
        switch self {
        case .admin: return .admin
        case .anonymous: return .anonymous
        case .user(let auth): return .user(uid: auth.uid)
        }
    }
}
