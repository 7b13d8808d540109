import HearthCore

/// A trigger's path pattern: keys and `$name` wildcards (`/lists/$list/items/$item`).
struct TriggerPattern: Sendable, Hashable, CustomStringConvertible {
    enum Segment: Sendable, Hashable {
        case key(ChildKey)
        case wildcard(String)
    }

    let segments: [Segment]
    let description: String
    /// The key encoding of the pattern's keys before its first wildcard, as it follows the
    /// namespace's data prefix in a data key (`WriteLocations.reaches(fixed:keys:)`).
    let fixedLocation: [UInt8]

    /// - Throws: `StoreError` `.invalidWrite` for an empty wildcard name, a repeated one, or
    ///   a key Firebase refuses.
    init(_ text: String) throws {
        var segments: [Segment] = []
        for part in text.split(separator: "/", omittingEmptySubsequences: true) {
            if part.hasPrefix("$") {
                let name = String(part.dropFirst())
                let taken = segments.contains { $0 == .wildcard(name) }
                guard !name.isEmpty, !taken else {
                    throw StoreError(
                        .invalidWrite,
                        "Invalid trigger pattern '\(text)': each wildcard needs a name of its own after '$'."
                    )
                }
                segments.append(.wildcard(name))
            } else {
                do {
                    let parsed = try DataPath.parse("/" + part)
                    guard parsed.depth == 1 else { throw StoreError(.invalidWrite, "") }
                    segments.append(.key(parsed.keys[0]))
                } catch {
                    throw StoreError(
                        .invalidWrite,
                        "Invalid trigger pattern '\(text)': '\(part)' is not a valid key."
                    )
                }
            }
        }
        self.segments = segments
        description = text
        var fixed: [ChildKey] = []
        for segment in segments {
            guard case .key(let key) = segment else { break }
            fixed.append(key)
        }
        fixedLocation = KeyEncoding.encode(DataPath(keys: fixed))
    }

    var depth: Int { segments.count }

    /// True when the first `path.depth` segments match `path` (so matching locations may lie
    /// at or below it); `path` is no deeper than the pattern.
    func leadsTo(_ path: DataPath) -> Bool {
        for (segment, key) in zip(segments, path.keys) {
            if case .key(let expected) = segment, expected != key { return false }
        }
        return true
    }

    /// `leadsTo(base.appending(relative))` without building the path, for a `base` already
    /// known to lead to the pattern (`leadsTo(base)`, checked once for all of an update's
    /// entries).
    func leadsTo(_ relative: DataPath, below base: DataPath) -> Bool {
        var index = base.depth
        for key in relative.keys {
            guard index < segments.count else { return true }
            if case .key(let expected) = segments[index], expected != key { return false }
            index += 1
        }
        return true
    }

    /// The wildcards of `path` (exactly as deep as the pattern), or nil when it does not match.
    func match(_ path: DataPath) -> [String: String]? {
        guard path.depth == depth else { return nil }
        var wildcards: [String: String] = [:]
        for (segment, key) in zip(segments, path.keys) {
            switch segment {
            case .key(let expected): if expected != key { return nil }
            case .wildcard(let name): wildcards[name] = key.string
            }
        }
        return wildcards
    }
}
