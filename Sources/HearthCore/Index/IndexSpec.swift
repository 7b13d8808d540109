/// One `.indexOn` entry of a rules document: at every location matching `location` (whose
/// `$wildcard` levels match any key), children are indexed by `indexed`.
public struct IndexSpec: Hashable, Sendable, CustomStringConvertible {
    public enum Segment: Hashable, Sendable {
        case key(ChildKey)
        case wildcard(String)
    }

    public enum Indexed: Hashable, Sendable {
        /// `.indexOn: "child/path"`
        case child(DataPath)
        /// `.indexOn: ".value"`
        case value
    }

    public var location: [Segment]
    public var indexed: Indexed

    public init(location: [Segment], indexed: Indexed) {
        self.location = location
        self.indexed = indexed
    }

    /// True when `path` is a location this index covers.
    public func matches(_ path: DataPath) -> Bool {
        guard path.depth == location.count else { return false }
        for (segment, key) in zip(location, path.keys) {
            if case .key(let expected) = segment, expected != key { return false }
        }
        return true
    }

    public var description: String {
        let where_ =
            "/"
            + location.map { segment -> String in
                switch segment {
                case .key(let key): return key.string
                case .wildcard(let name): return name
                }
            }.joined(separator: "/")
        switch indexed {
        case .value: return "\(where_) .value"
        case .child(let path): return "\(where_) \(path.keys.map(\.string).joined(separator: "/"))"
        }
    }
}
