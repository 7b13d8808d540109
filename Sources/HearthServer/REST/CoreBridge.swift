import HearthCore
import HearthStore

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
        guard case .object(let members) = try JSONParser.parse(bytes) else {
            throw RESTError.badRequest("Invalid data; couldn't parse JSON object, array, or value.")
        }
        var entries: [UpdateEntry] = []
        entries.reserveCapacity(members.count)
        // Keys naming the same path (`a/b`, `/a/b/`): the first one's place, the last one's value.
        // By the path's canonical spelling, which most keys already are.
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
            let entry = UpdateEntry(path: relative, value: parsed)
            let spelling = PathSpelling(isCanonical(key) ? key : relative.keys.map(\.string).joined(separator: "/"))
            if let index = seen[spelling] {
                entries[index] = entry
            } else {
                seen[spelling] = entries.count
                entries.append(entry)
            }
        }
        return entries
    }

    /// True when `key` spells its path with no empty segment (no leading, trailing or double
    /// `/`): the path's keys joined by `/`.
    private static func isCanonical(_ key: String) -> Bool {
        var previous = UInt8(ascii: "/")
        for byte in key.utf8 {
            if byte == UInt8(ascii: "/") && previous == byte { return false }
            previous = byte
        }
        return previous != UInt8(ascii: "/")
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
