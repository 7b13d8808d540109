/// The declarations of a storage rules file, as parsed.

/// The methods an `allow` names: `read` is `get` and `list`, `write` is `create`, `update` and
/// `delete`.
public enum StorageMethod: String, Sendable, CaseIterable {
    case get, list, create, update, delete

    /// The methods a word of an `allow` covers, nil for an unknown word.
    static func covered(by word: String) -> Set<StorageMethod>? {
        switch word {
        case "read": return [.get, .list]
        case "write": return [.create, .update, .delete]
        default: return StorageMethod(rawValue: word).map { [$0] }
        }
    }

    static let words = ["read", "write", "get", "list", "create", "update", "delete"]
}

/// One segment of a `match` path: a literal, `{name}` (one segment) or `{name=**}` (the rest).
enum StoragePatternSegment: Sendable, Equatable {
    case literal(String)
    case wildcard(String)
    case recursive(String)

    var text: String {
        switch self {
        case .literal(let text): return text
        case .wildcard(let name): return "{\(name)}"
        case .recursive(let name): return "{\(name)=**}"
        }
    }

    var variable: String? {
        switch self {
        case .literal: return nil
        case .wildcard(let name), .recursive(let name): return name
        }
    }
}

/// `allow read, write: if <condition>;`
struct StorageAllowSyntax: Sendable {
    var words: [String]
    var methods: Set<StorageMethod>
    var condition: StorageExpression?
    var position: SourcePosition
}

/// `function name(a, b) { let x = ...; return ...; }`
struct StorageFunctionSyntax: Sendable {
    var name: String
    var parameters: [String]
    var bindings: [(name: String, value: StorageExpression, position: SourcePosition)]
    var result: StorageExpression
    var position: SourcePosition
}

/// `match /path/{x} { ... }`
struct StorageMatchSyntax: Sendable {
    var segments: [StoragePatternSegment]
    var position: SourcePosition
    var allows: [StorageAllowSyntax] = []
    var functions: [StorageFunctionSyntax] = []
    var matches: [StorageMatchSyntax] = []
}

/// A whole file: `rules_version`, `service firebase.storage { ... }`.
struct StorageRulesSyntax: Sendable {
    var version: Int
    var service: String
    var functions: [StorageFunctionSyntax]
    var matches: [StorageMatchSyntax]
}
