import HearthCore
import HearthProtocol

/// Every call into HearthCore's parsing, rendering and id generation, in one place.
enum CoreBridge {
    static func parsePath(_ decoded: String) throws -> DataPath {
        try DataPath.parse(decoded)
    }

    static func parseWritePath(_ decoded: String) throws -> (path: DataPath, isPriority: Bool) {
        try DataPath.parseWritePath(decoded)
    }

    /// A request body as Firebase data to write at `path`.
    static func parseValue(_ bytes: [UInt8], at path: DataPath) throws -> NewValue {
        try TreeParser.parse(bytes, at: path)
    }

    /// A PATCH body: an object whose keys are paths relative to `path`.
    static func parseUpdate(_ bytes: [UInt8], at path: DataPath) throws -> [UpdateEntry] {
        if let entries = parseUpdateDirectly(bytes, at: path) { return entries }
        return try parseUpdateAsJSON(bytes, at: path)
    }

    /// The usual PATCH body read without building a JSON value first: each member's value
    /// parsed into the tree straight from the body (a chat message with its members' counters
    /// is hundreds of them). Nil whenever anything is unusual: an error anywhere, a control
    /// character in a key, a `-0` (which the general path writes as `0`). The general path then
    /// reads the body again and answers exactly as it always has.
    private static func parseUpdateDirectly(_ bytes: [UInt8], at path: DataPath) -> [UpdateEntry]? {
        guard let object = try? RawJSONObject(bytes) else { return nil }
        return TreeParser.parsingMany { parse in parseUpdateDirectly(object, at: path, parse: parse) }
    }

    private static func parseUpdateDirectly(
        _ object: RawJSONObject,
        at path: DataPath,
        parse: (ArraySlice<UInt8>, DataPath) throws -> NewValue
    ) -> [UpdateEntry]? {
        var entries: [UpdateEntry] = []
        entries.reserveCapacity(object.members.count)
        // Keys naming one path twice are rare: with every key canonical and no two alike,
        // each entry is kept as it comes.
        let distinct = spellsDistinctCanonicalPaths(object.members)
        var seen: [PathSpelling: Int] = [:]
        if !distinct { seen.reserveCapacity(object.members.count) }
        for member in object.members {
            guard !member.key.utf8.contains(where: { $0 < 0x20 }),
                let relative = try? DataPath.parse(member.key), !relative.isRoot
            else { return nil }
            let raw = object.bytes[member.value]
            guard !hasNegativeZero(raw), let parsed = try? parse(raw, path.appending(relative)) else {
                return nil
            }
            let entry = UpdateEntry(path: relative, value: parsed)
            if distinct {
                entries.append(entry)
            } else {
                record(entry, key: member.key, in: &entries, seen: &seen)
            }
        }
        return entries
    }

    /// True when every key spells its path canonically and no two keys are the same bytes (so
    /// no two name the same path).
    private static func spellsDistinctCanonicalPaths(_ members: [RawJSONObject.Member]) -> Bool {
        var spellings = Set<PathSpelling>(minimumCapacity: members.count)
        for member in members {
            guard isCanonical(member.key), spellings.insert(PathSpelling(member.key)).inserted else { return false }
        }
        return true
    }

    /// Keys naming the same path (`a/b`, `/a/b/`): the first one's place, the last one's value.
    /// By the path's canonical spelling, which most keys already are.
    private static func record(
        _ entry: UpdateEntry,
        key: String,
        in entries: inout [UpdateEntry],
        seen: inout [PathSpelling: Int]
    ) {
        let spelling = PathSpelling(isCanonical(key) ? key : entry.path.keys.map(\.string).joined(separator: "/"))
        if let index = seen[spelling] {
            entries[index] = entry
        } else {
            seen[spelling] = entries.count
            entries.append(entry)
        }
    }

    /// True when `raw` holds the bytes `-0` (a negative zero, or just a `-0.5` or a string).
    private static func hasNegativeZero(_ raw: ArraySlice<UInt8>) -> Bool {
        var previous: UInt8 = 0
        for byte in raw {
            if byte == UInt8(ascii: "0") && previous == UInt8(ascii: "-") { return true }
            previous = byte
        }
        return false
    }

    /// Any PATCH body, read as a JSON value first.
    static func parseUpdateAsJSON(_ bytes: [UInt8], at path: DataPath) throws -> [UpdateEntry] {
        guard case .object(let members) = try JSONParser.parse(bytes) else {
            throw RESTError.badRequest("Invalid data; couldn't parse JSON object, array, or value.")
        }
        var entries: [UpdateEntry] = []
        entries.reserveCapacity(members.count)
        var seen: [PathSpelling: Int] = [:]
        seen.reserveCapacity(members.count)
        var text: [UInt8] = []
        for (key, value) in members {
            let relative = try DataPath.parse(key)
            guard !relative.isRoot else {
                throw RESTError.badRequest("Invalid key '\(key)' in PATCH body: a key must name a child path.")
            }
            text.removeAll(keepingCapacity: true)
            JSONRenderer.render(value, into: &text)
            let parsed = try TreeParser.parse(text, at: path.appending(relative))
            record(UpdateEntry(path: relative, value: parsed), key: key, in: &entries, seen: &seen)
        }
        return entries
    }

    /// True when `key` spells its path with no empty segment (no leading, trailing or double
    /// `/`): the path's keys joined by `/`.
    private static func isCanonical(_ key: String) -> Bool {
        var key = key
        return key.withUTF8 { utf8 in
            var previous = UInt8(ascii: "/")
            for byte in utf8 {
                if byte == UInt8(ascii: "/") && previous == byte { return false }
                previous = byte
            }
            return previous != UInt8(ascii: "/")
        }
    }

    /// Compact JSON of a node (`null` for nil).
    static func render(_ node: Node?, format: RenderFormat, into output: inout [UInt8]) {
        guard let node else {
            output.append(contentsOf: "null".utf8)
            return
        }
        JSONRenderer.render(node, format: format, into: &output)
    }

    static func pretty(_ compact: [UInt8]) -> [UInt8] {
        JSONPretty.reformat(compact)
    }

    private static let pushIDs = PushIDGenerator()

    /// A new 20-character chronological push id.
    static func nextPushID() -> String {
        pushIDs.next()
    }
}

/// A path spelled `k1/k2`, equal to another when their UTF-8 bytes are (as `ChildKey`s are: no
/// Unicode canonical equivalence), hashed in one pass.
private struct PathSpelling: Hashable {
    let text: String

    init(_ text: String) { self.text = text }

    static func == (lhs: PathSpelling, rhs: PathSpelling) -> Bool {
        lhs.text.utf8.elementsEqual(rhs.text.utf8)
    }

    func hash(into hasher: inout Hasher) {
        var text = text
        text.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }
}
