import HearthAccounts
import HearthFunctions

/// What a `searchUsers` call asks: the words of its query, the page size and where to go on.
struct SearchQuery {
    /// The query's words, lower-cased (`NameWords`), each to be the start of a word of the
    /// display name.
    let words: [String]
    /// The word the index is scanned by: the longest (the fewest names start with it).
    let scanned: String
    let limit: Int
    /// The index position to continue after (`next` of the page before).
    let after: [UInt8]?

    static let defaultLimit = 20
    static let maxLimit = 50
    /// A display name is at most 50 characters; a longer query finds nobody worth finding.
    static let maxQueryLength = 100
    static let usage = #"e.g. {"query": "ali", "limit": 20, "startAfter": "<next of the page before>"}"#

    init(_ data: CallData) throws(CallableError) {
        let query = try data.string("query")
        guard query.count <= Self.maxQueryLength else {
            throw .invalidArgument(
                "'query' is \(query.count) characters long; the limit is \(Self.maxQueryLength)."
            )
        }
        words = NameWords.words(of: query)
        guard let longest = words.max(by: { $0.utf8.count < $1.utf8.count }) else {
            throw .invalidArgument(
                "'query' has no letters or digits to search for ('\(query.prefix(32))'); send the start of a name."
            )
        }
        scanned = longest
        limit = try Self.limit(data)
        after = try Self.cursor(data)
    }

    private static func limit(_ data: CallData) throws(CallableError) -> Int {
        guard let value = data.fields["limit"], value != .null else { return defaultLimit }
        guard let number = value.numberValue, number.rounded() == number, number >= 1, number <= Double(maxLimit)
        else {
            throw .invalidArgument(
                "'limit' must be a whole number from 1 to \(maxLimit), not \(CallData.describe(value))."
            )
        }
        return Int(number)
    }

    private static func cursor(_ data: CallData) throws(CallableError) -> [UInt8]? {
        guard let value = data.fields["startAfter"], value != .null else { return nil }
        guard let text = value.stringValue, text.utf8.count <= 2_048, let bytes = Base64URL.decode(Substring(text)),
            !bytes.isEmpty
        else {
            throw .invalidArgument(
                "'startAfter' must be the 'next' string of a previous page of the same query, not \(CallData.describe(value))."
            )
        }
        return bytes
    }
}
