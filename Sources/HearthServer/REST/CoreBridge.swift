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
        var seen: [DataPath: Int] = [:]
        for (key, value) in members {
            let relative = try DataPath.parse(key)
            guard !relative.isRoot else {
                throw RESTError.badRequest("Invalid key '\(key)' in PATCH body: a key must name a child path.")
            }
            var text: [UInt8] = []
            JSONRenderer.render(value, into: &text)
            let parsed = try TreeParser.parse(text, at: path.appending(relative))
            let entry = UpdateEntry(path: relative, value: parsed)
            if let index = seen[relative] {
                entries[index] = entry
            } else {
                seen[relative] = entries.count
                entries.append(entry)
            }
        }
        return entries
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
