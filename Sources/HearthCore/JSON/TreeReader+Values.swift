/// The special members: `.priority` values and `.sv` server values.
extension TreeReader {
    /// Reads the value of a `.priority` member: a number, a string, null, or a server value.
    mutating func priorityValue(rawDepth: Int) throws -> Priority? {
        let b = try next()
        let start = scanner.position
        switch b {
        case 0x22:
            return .string(try readString())
        case UInt8(ascii: "-"), 0x30...0x39:
            return .number(try scanner.scanNumber(isFinal: true)!)
        default:
            let value = try JSONParser.readValue(&scanner, depth: rawDepth)
            if value == .null { return nil }
            if case .object(let members) = value, members.count == 1, members[0].0 == ".sv",
                let parsed = Self.serverValue(members[0].1)
            {
                serverValues.append(
                    ServerValuePlacement(path: DataPath(keys: pathKeys()), value: parsed, isPriority: true)
                )
                return nil
            }
            let text = Self.objectText(scanner: scanner, from: start)
            throw CoreError.invalidPriority(
                text,
                at: pathDescription + (depth == 0 && basePath.isRoot ? ".priority" : "/.priority")
            )
        }
    }

    /// The server value named by the value of a `.sv` member, or nil when it is not one.
    static func serverValue(_ value: JSONValue) -> ServerValue? {
        switch value {
        case .string("timestamp"):
            return .timestamp
        case .object(let members):
            if members.count == 1, members[0].0 == "increment", case .number(let n) = members[0].1 {
                return .increment(n)
            }
            return nil
        default:
            return nil
        }
    }

    /// The source text of the value that started at `from` and ends at the cursor.
    static func objectText(scanner: JSONScanner, from: Int) -> String {
        let count = min(scanner.position - from, 200)
        return String(decoding: UnsafeBufferPointer(start: scanner.base + from, count: max(0, count)), as: UTF8.self)
    }

}
