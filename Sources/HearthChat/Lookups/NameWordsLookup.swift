import HearthCore

/// The index of `searchUsers`: each word of a profile's `displayName`, lower-cased → its uid
/// (`users/$uid/displayName`), kept in the same batch as the profile's change. Every entry
/// carries all the name's words (space-separated), so a search judges a candidate without
/// reading its profile.
struct NameWordsLookup: LookupIndex {
    static let name = "chat.nameWords"
    var name: String { Self.name }
    var pattern: String { "/users/$uid/displayName" }
    var version: Int { 2 }

    func terms(of value: Node, wildcards: [String: String]) -> [String] {
        guard case .leaf(.string(let text), _) = value else { return [] }
        return NameWords.words(of: text)
    }

    func payload(of value: Node, wildcards: [String: String]) -> [UInt8] {
        Array(terms(of: value, wildcards: wildcards).joined(separator: " ").utf8)
    }

    /// The words an entry's payload carries.
    static func words(inPayload payload: [UInt8]) -> [String] {
        payload.split(separator: UInt8(ascii: " ")).map { String(decoding: $0, as: UTF8.self) }
    }
}

/// How display names and queries are split into words: lower-cased, split on whitespace and
/// punctuation (anything but letters, digits and marks), each word once.
enum NameWords {
    /// The most words taken from one name (a display name is at most 50 characters).
    static let maxWords = 32

    static func words(of text: String) -> [String] {
        var seen = Set<String>()
        var words: [String] = []
        for word in text.lowercased().split(whereSeparator: isSeparator) {
            let word = String(word)
            if seen.insert(word).inserted { words.append(word) }
            if words.count == maxWords { break }
        }
        return words
    }

    private static func isSeparator(_ character: Character) -> Bool {
        !character.unicodeScalars.contains { scalar in
            scalar.properties.isAlphabetic || scalar.properties.numericType != nil
                || scalar.properties.generalCategory == .nonspacingMark
        }
    }
}
