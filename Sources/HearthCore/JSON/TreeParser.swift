/// Parses JSON text straight into the tree, with Firebase's semantics: nulls dropped, empty
/// objects and arrays are null (and a parent left empty vanishes), arrays become objects keyed
/// `"0"`, `"1"`, ..., `.priority` and `.value` handled, server values recorded apart.
public enum TreeParser {
    /// Parses the JSON `bytes` written at `basePath`.
    /// - Parameter basePath: where the value will be written; it counts toward the depth limit.
    /// - Returns: the node (nil for null) and the server values found in it, at paths relative
    ///   to `basePath`.
    /// - Throws: `CoreError` for malformed JSON, invalid keys, data nested over 32 levels, or
    ///   invalid `.value`, `.priority` and `.sv` usage.
    public static func parse(_ bytes: some Collection<UInt8>, at basePath: DataPath) throws -> NewValue {
        if let result = try bytes.withContiguousStorageIfAvailable({ buffer in
            try parse(buffer: UnsafeRawBufferPointer(buffer), at: basePath)
        }) {
            return result
        }
        let copy = Array(bytes)
        return try copy.withUnsafeBytes { try parse(buffer: $0, at: basePath) }
    }

    /// Parses JSON text held in a string.
    public static func parse(_ text: String, at basePath: DataPath) throws -> NewValue {
        var text = text
        return try text.withUTF8 { try parse(buffer: UnsafeRawBufferPointer($0), at: basePath) }
    }

    static func parse(buffer: UnsafeRawBufferPointer, at basePath: DataPath) throws -> NewValue {
        guard let base = buffer.baseAddress, buffer.count > 0 else { throw CoreError.unexpectedEnd(0) }
        var reader = TreeReader(
            scanner: JSONScanner(base: base.assumingMemoryBound(to: UInt8.self), count: buffer.count),
            basePath: basePath)
        let node = try reader.value(rawDepth: 0)
        guard try reader.scanner.skipWhitespace(), reader.scanner.atEnd else {
            throw CoreError.trailingCharacters(reader.scanner.byte(reader.scanner.position))
        }
        return NewValue(node: node, serverValues: reader.serverValues)
    }
}

/// The recursive reader behind `TreeParser`.
struct TreeReader {
    var scanner: JSONScanner
    let basePath: DataPath
    /// The path of the value being read, relative to `basePath`.
    var keys: [ChildKey] = []
    var serverValues: [ServerValuePlacement] = []
    /// Members of the objects and arrays being read, innermost last (reused, so that each
    /// finished object allocates its arrays once, at their final size).
    var memberKeys: [ChildKey] = []
    var memberNodes: [Node] = []

    init(scanner: JSONScanner, basePath: DataPath) {
        self.scanner = scanner
        self.basePath = basePath
    }

    var pathDescription: String { KeyValidator.describe(basePath.keys + keys) }

    @inline(__always)
    mutating func next() throws -> UInt8 {
        guard try scanner.skipWhitespace(), let b = scanner.peek() else {
            throw CoreError.unexpectedEnd(scanner.byte(scanner.end))
        }
        return b
    }

    mutating func value(rawDepth: Int) throws -> Node? {
        let b = try next()
        switch b {
        case UInt8(ascii: "{"):
            return try object(rawDepth: rawDepth + 1)
        case UInt8(ascii: "["):
            return try array(rawDepth: rawDepth + 1)
        case 0x22:
            guard let s = try scanner.scanString() else { throw CoreError.unexpectedEnd(scanner.byte(scanner.end)) }
            return .leaf(.string(s), priority: nil)
        case UInt8(ascii: "-"), 0x30...0x39:
            return .leaf(.number(try scanner.scanNumber(isFinal: true)!), priority: nil)
        case UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"):
            guard let literal = try scanner.scanLiteral() else { throw CoreError.unexpectedEnd(scanner.byte(scanner.end)) }
            switch literal {
            case .true: return .leaf(.bool(true), priority: nil)
            case .false: return .leaf(.bool(false), priority: nil)
            case .null: return nil
            }
        default:
            throw CoreError.expectedValue(scanner.byte(scanner.position), found: b)
        }
    }

    @inline(__always)
    mutating func pushKey(_ key: ChildKey) throws {
        keys.append(key)
        if basePath.depth + keys.count > KeyValidator.maxDepth {
            throw CoreError.pathTooDeep(pathDescription)
        }
    }

    mutating func array(rawDepth: Int) throws -> Node? {
        guard rawDepth <= JSONParser.maxNesting else { throw CoreError.nestingTooDeep(byte: scanner.byte(scanner.position)) }
        scanner.position += 1
        if try next() == UInt8(ascii: "]") {
            scanner.position += 1
            return nil
        }
        let base = memberKeys.count
        var index = 0
        while true {
            let key = ChildKey(String(index))
            try pushKey(key)
            if let node = try value(rawDepth: rawDepth) {
                memberKeys.append(key)
                memberNodes.append(node)
            }
            keys.removeLast()
            index += 1
            let c = try next()
            scanner.position += 1
            if c == UInt8(ascii: ",") { continue }
            if c == UInt8(ascii: "]") { break }
            throw CoreError.expectedAfterElement(scanner.byte(scanner.position - 1))
        }
        if memberKeys.count == base { return nil }
        let children = Children(sortedKeys: Array(memberKeys[base...]), nodes: Array(memberNodes[base...]))
        memberKeys.removeSubrange(base...)
        memberNodes.removeSubrange(base...)
        return .children(children, priority: nil)
    }

    mutating func object(rawDepth: Int) throws -> Node? {
        guard rawDepth <= JSONParser.maxNesting else { throw CoreError.nestingTooDeep(byte: scanner.byte(scanner.position)) }
        let objectStart = scanner.position
        scanner.position += 1
        let base = memberKeys.count
        /// Null members, with the number of members before them (for last-wins duplicates).
        var nulls: [(key: ChildKey, position: Int)] = []
        var priority: Priority?
        var sawValue = false
        var sawChild = false
        var valueNode: Node?
        var serverValue: JSONValue?
        if try next() == UInt8(ascii: "}") {
            scanner.position += 1
            return nil
        }
        while true {
            guard try next() == 0x22 else { throw CoreError.expectedKey(scanner.byte(scanner.position)) }
            guard let key = try scanner.scanString() else { throw CoreError.unexpectedEnd(scanner.byte(scanner.end)) }
            guard try next() == UInt8(ascii: ":") else { throw CoreError.expectedColon(scanner.byte(scanner.position)) }
            scanner.position += 1
            if key.utf8.first == UInt8(ascii: ".") && (key == ".priority" || key == ".value" || key == ".sv") {
                switch key {
                case ".priority":
                    priority = try priorityValue(rawDepth: rawDepth)
                case ".value":
                    sawValue = true
                    if sawChild { throw CoreError.valueWithChildren(at: pathDescription) }
                    valueNode = try value(rawDepth: rawDepth)
                default:
                    _ = try next()
                    serverValue = try JSONParser.readValue(&scanner, depth: rawDepth)
                }
            } else {
                sawChild = true
                if sawValue { throw CoreError.valueWithChildren(at: pathDescription) }
                var keyCopy = key
                if let problem = keyCopy.withUTF8({ KeyValidator.problem(bytes: $0) }) {
                    throw KeyValidator.error(problem, key: key, path: KeyValidator.describe(basePath.keys + keys + [ChildKey(key)]))
                }
                let childKey = ChildKey(key)
                try pushKey(childKey)
                if let node = try value(rawDepth: rawDepth) {
                    memberKeys.append(childKey)
                    memberNodes.append(node)
                } else {
                    nulls.append((childKey, memberKeys.count - base))
                }
                keys.removeLast()
            }
            let c = try next()
            scanner.position += 1
            if c == UInt8(ascii: ",") { continue }
            if c == UInt8(ascii: "}") { break }
            throw CoreError.expectedAfterMember(scanner.byte(scanner.position - 1))
        }
        let children = takeMembers(from: base, nulls: nulls)
        if let serverValue {
            guard !sawChild, !sawValue, priority == nil, let parsed = Self.serverValue(serverValue) else {
                let text = Self.objectText(scanner: scanner, from: objectStart)
                throw CoreError.invalidServerValue(text, at: pathDescription)
            }
            serverValues.append(ServerValuePlacement(path: DataPath(keys: keys), value: parsed))
            return nil
        }
        let node: Node?
        if sawValue {
            node = valueNode
        } else if let children {
            node = .children(children, priority: nil)
        } else {
            node = nil
        }
        guard let node else { return nil }
        return priority == nil ? node : node.withPriority(priority)
    }

    /// The members collected since `base`, sorted (duplicates: the last wins), removed from
    /// the member stacks; nil when there are none.
    mutating func takeMembers(from base: Int, nulls: [(key: ChildKey, position: Int)]) -> Children? {
        defer {
            memberKeys.removeSubrange(base...)
            memberNodes.removeSubrange(base...)
        }
        let count = memberKeys.count - base
        if nulls.isEmpty {
            if count == 0 { return nil }
            var sorted = true
            var i = base + 1
            while i < memberKeys.count {
                if ChildKey.compare(memberKeys[i - 1], memberKeys[i]) >= 0 {
                    sorted = false
                    break
                }
                i += 1
            }
            if sorted {
                return Children(sortedKeys: Array(memberKeys[base...]), nodes: Array(memberNodes[base...]))
            }
            if count <= 64 {
                // Stable insertion sort in place; equal keys (duplicates) keep document order.
                var duplicates = false
                var i = base + 1
                while i < memberKeys.count {
                    var j = i
                    while j > base {
                        let c = ChildKey.compare(memberKeys[j - 1], memberKeys[j])
                        if c == 0 { duplicates = true }
                        if c <= 0 { break }
                        memberKeys.swapAt(j - 1, j)
                        memberNodes.swapAt(j - 1, j)
                        j -= 1
                    }
                    i += 1
                }
                if !duplicates {
                    return Children(sortedKeys: Array(memberKeys[base...]), nodes: Array(memberNodes[base...]))
                }
                var k: [ChildKey] = []
                var n: [Node] = []
                for i in base..<memberKeys.count {
                    if let last = k.last, last == memberKeys[i] {
                        n[n.count - 1] = memberNodes[i]
                    } else {
                        k.append(memberKeys[i])
                        n.append(memberNodes[i])
                    }
                }
                return Children(sortedKeys: k, nodes: n)
            }
        }
        // General case: merge nulls back in document order, sort stably, keep the last of
        // equal keys, drop nulls.
        var entries: [(key: ChildKey, node: Node?)] = []
        entries.reserveCapacity(count + nulls.count)
        var nullIndex = 0
        for i in 0...count {
            while nullIndex < nulls.count && nulls[nullIndex].position == i {
                entries.append((nulls[nullIndex].key, nil))
                nullIndex += 1
            }
            if i < count { entries.append((memberKeys[base + i], memberNodes[base + i])) }
        }
        let pairs = Children.sortedLastWins(keys: entries.map(\.key), nodes: entries.map(\.node))
        var k: [ChildKey] = []
        var n: [Node] = []
        k.reserveCapacity(pairs.count)
        n.reserveCapacity(pairs.count)
        for (key, node) in pairs {
            if let node {
                k.append(key)
                n.append(node)
            }
        }
        return k.isEmpty ? nil : Children(sortedKeys: k, nodes: n)
    }

    /// Reads the value of a `.priority` member: a number, a string, null, or a server value.
    mutating func priorityValue(rawDepth: Int) throws -> Priority? {
        let b = try next()
        let start = scanner.position
        switch b {
        case 0x22:
            guard let s = try scanner.scanString() else { throw CoreError.unexpectedEnd(scanner.byte(scanner.end)) }
            return .string(s)
        case UInt8(ascii: "-"), 0x30...0x39:
            return .number(try scanner.scanNumber(isFinal: true)!)
        default:
            let value = try JSONParser.readValue(&scanner, depth: rawDepth)
            if value == .null { return nil }
            if case .object(let members) = value, members.count == 1, members[0].0 == ".sv",
                let parsed = Self.serverValue(members[0].1)
            {
                serverValues.append(ServerValuePlacement(path: DataPath(keys: keys), value: parsed, isPriority: true))
                return nil
            }
            let text = Self.objectText(scanner: scanner, from: start)
            throw CoreError.invalidPriority(text, at: pathDescription + (keys.isEmpty && basePath.isRoot ? ".priority" : "/.priority"))
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

extension Children {
    /// Pairs sorted by key where, among equal keys, only the last in input order is kept.
    static func sortedLastWins(keys: [ChildKey], nodes: [Node?]) -> [(ChildKey, Node?)] {
        var order = Array(0..<keys.count)
        order.sort {
            let c = ChildKey.compare(keys[$0], keys[$1])
            return c != 0 ? c < 0 : $0 < $1
        }
        var result: [(ChildKey, Node?)] = []
        result.reserveCapacity(keys.count)
        for index in order {
            if let last = result.last, last.0 == keys[index] {
                result[result.count - 1] = (keys[index], nodes[index])
            } else {
                result.append((keys[index], nodes[index]))
            }
        }
        return result
    }
}
