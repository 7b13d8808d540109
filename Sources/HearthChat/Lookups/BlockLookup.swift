import HearthCore

/// Every block list naming a user: `blocks/$uid/$blockedUid` found by `$blockedUid`, so that
/// deleting an account removes the blocks of it (and their markers, `BlockList`) without
/// reading every list.
struct BlockLookup: LookupIndex {
    static let name = "chat.blocksNaming"
    var name: String { Self.name }
    var pattern: String { "/blocks/$uid/$blockedUid" }
    var version: Int { 1 }

    func terms(of value: Node, wildcards: [String: String]) -> [String] {
        wildcards["blockedUid"].map { [$0] } ?? []
    }
}
