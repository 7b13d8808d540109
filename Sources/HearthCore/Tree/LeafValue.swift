/// A primitive value stored at a leaf: Firebase has booleans, numbers (IEEE doubles) and strings.
public enum LeafValue: Hashable, Sendable {
    case bool(Bool)
    case number(Double)
    case string(String)
}

/// A node's priority: a number or a string (a null priority is no priority).
public enum Priority: Hashable, Sendable {
    case number(Double)
    case string(String)

    /// Firebase's priority order: numbers before strings, numbers ascending, strings by UTF-16.
    /// A missing priority sorts before every present one.
    public static func compare(_ lhs: Priority?, _ rhs: Priority?) -> Int {
        switch (lhs, rhs) {
        case (nil, nil): return 0
        case (nil, _): return -1
        case (_, nil): return 1
        case let (.number(a)?, .number(b)?): return a < b ? -1 : (a > b ? 1 : 0)
        case (.number?, .string?): return -1
        case (.string?, .number?): return 1
        case let (.string(a)?, .string(b)?): return UTF16Order.compare(a, b)
        }
    }
}
