import HearthAccounts
import HearthFunctions

/// What a `searchUsers` call asks: the words of its query, the page size and where to go on.
struct SearchQuery {
    /// The query's words, lower-cased (`NameWords`), each to be the start of a word of the
    /// display name.
    let words: [String]
    let limit: Int
    /// Where the page before ended (its `next`): the query word it scanned by, and the index
    /// position to continue after.
    let after: (word: Int, position: [UInt8])?

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
        guard !words.isEmpty else {
            throw .invalidArgument(
                "'query' has no letters or digits to search for ('\(query.prefix(32))'); send the start of a name."
            )
        }
        limit = try Self.limit(data)
        after = try Self.cursor(data, words: words.count)
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

    private static func cursor(_ data: CallData, words: Int) throws(CallableError) -> (word: Int, position: [UInt8])? {
        guard let value = data.fields["startAfter"], value != .null else { return nil }
        guard let text = value.stringValue, text.utf8.count <= 2_048, let bytes = Base64URL.decode(Substring(text)),
            bytes.count >= 2, Int(bytes[0]) < words
        else {
            throw .invalidArgument(
                "'startAfter' must be the 'next' string of a previous page of the same query, not \(CallData.describe(value))."
            )
        }
        return (Int(bytes[0]), Array(bytes.dropFirst()))
    }

    /// The `next` of a page that ended after `position`, scanning by word `word`.
    static func next(word: Int, position: [UInt8]) -> String {
        Base64URL.encode([UInt8(word)] + position)
    }
}
