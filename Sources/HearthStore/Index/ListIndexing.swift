import HearthCore

/// Which of a namespace's indexed lists keep index entries (docs/decisions/0024): a list keeps
/// none until a query finds it holding more than `smallListLimit` children; that query asks the
/// writer (`keep`) to build the list's entries and its marker, and from then on the writer
/// keeps them equal to the data. Below the limit a query orders the children as it reads them,
/// in the entries' byte order, so both give the same answer.
struct ListIndexing: Sendable {
    /// Children a list may hold and still be ordered when read (`StoreConfiguration`).
    var smallListLimit: Int
    /// Called by a query that read a list without entries holding more than `smallListLimit`
    /// children (the list's path, the index): the store builds its entries on the writer.
    var keep: (@Sendable (RegisteredIndex, DataPath) -> Void)?

    static let `default` = ListIndexing(smallListLimit: StoreConfiguration.defaultSmallListLimit, keep: nil)
}
