import HearthCore
import HearthStore

/// An onDisconnect `Write` as the bytes of its stored record, and back: a small JSON document.
///
///     {"k":"s","p":"/a/b","v":V}                    a set
///     {"k":"u","p":"/a","e":[["x/y",V], …]}         an update (entry paths relative)
///     V = {"n":"<the node in export JSON>","s":[["rel/path","t"|"i",amount,isPriority], …]}
///
/// The node is kept as export JSON (priorities and `.value` included) inside a string, read back
/// with `TreeParser`; server values are kept apart, as `NewValue` holds them.
enum OnDisconnectCodec {
    struct Malformed: Error, CustomStringConvertible {
        let description: String
    }

    static func encode(_ write: Write) -> [UInt8] {
        let document: JSONValue
        switch write.operation {
        case .set(let path, let value):
            document = .object([("k", .string("s")), ("p", .string(path.description)), ("v", encode(value))])
        case .update(let path, let entries):
            let list = entries.map { JSONValue.array([.string($0.path.description), encode($0.value)]) }
            document = .object([("k", .string("u")), ("p", .string(path.description)), ("e", .array(list))])
        }
        var out: [UInt8] = []
        JSONRenderer.render(document, into: &out)
        return out
    }

    static func decode(_ bytes: [UInt8]) throws -> Write {
        guard case .object(let members) = try JSONParser.parse(bytes) else {
            throw Malformed(description: "not an object")
        }
        let fields = Dictionary(members, uniquingKeysWith: { _, last in last })
        guard case .string(let kind)? = fields["k"], case .string(let pathText)? = fields["p"] else {
            throw Malformed(description: "no kind or path")
        }
        let path = Self.path(pathText)
        switch kind {
        case "s":
            guard let value = fields["v"] else { throw Malformed(description: "a set without a value") }
            return Write(.set(path, try decode(value)))
        case "u":
            guard case .array(let list)? = fields["e"] else {
                throw Malformed(description: "an update without entries")
            }
            let entries = try list.map { item -> UpdateEntry in
                guard case .array(let pair) = item, pair.count == 2, case .string(let relative) = pair[0] else {
                    throw Malformed(description: "an update entry is not [path, value]")
                }
                return UpdateEntry(path: Self.path(relative), value: try decode(pair[1]))
            }
            return Write(.update(path, entries))
        default:
            throw Malformed(description: "unknown kind '\(kind)'")
        }
    }

    private static func encode(_ value: NewValue) -> JSONValue {
        let node = String(decoding: JSONRenderer.render(value.node, format: .export), as: UTF8.self)
        let serverValues = value.serverValues.map { placement -> JSONValue in
            let (kind, amount): (String, Double)
            switch placement.value {
            case .timestamp: (kind, amount) = ("t", 0)
            case .increment(let by): (kind, amount) = ("i", by)
            }
            return .array([
                .string(placement.path.description), .string(kind), .number(amount), .bool(placement.isPriority),
            ])
        }
        return .object([("n", .string(node)), ("s", .array(serverValues))])
    }

    private static func decode(_ value: JSONValue) throws -> NewValue {
        guard case .object(let members) = value else { throw Malformed(description: "a value is not an object") }
        let fields = Dictionary(members, uniquingKeysWith: { _, last in last })
        guard case .string(let node)? = fields["n"], case .array(let list)? = fields["s"] else {
            throw Malformed(description: "a value without node or server values")
        }
        let parsed = try TreeParser.parse(Array(node.utf8), at: .root)
        let placements = try list.map { item -> ServerValuePlacement in
            guard case .array(let parts) = item, parts.count == 4, case .string(let where_) = parts[0],
                case .string(let kind) = parts[1], case .number(let amount) = parts[2],
                case .bool(let isPriority) = parts[3]
            else { throw Malformed(description: "a server value is not [path, kind, amount, isPriority]") }
            let serverValue: ServerValue
            switch kind {
            case "t": serverValue = .timestamp
            case "i": serverValue = .increment(amount)
            default: throw Malformed(description: "unknown server value '\(kind)'")
            }
            return ServerValuePlacement(path: Self.path(where_), value: serverValue, isPriority: isPriority)
        }
        return NewValue(node: parsed.node, serverValues: placements)
    }

    /// A path from its description (keys never hold the byte '/'; `.priority` kept as a key).
    private static func path(_ text: String) -> DataPath {
        DataPath(
            keys: text.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: true).map {
                ChildKey(String(Substring($0)))
            }
        )
    }
}
