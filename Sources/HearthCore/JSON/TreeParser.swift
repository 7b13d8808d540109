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
            basePath: basePath
        )
        defer { reader.release() }
        return try reader.whole()
    }

    /// Runs `body` with a `parse` that reads many values one after another (an update's
    /// members: hundreds of small values) with one reader's memory, instead of allocating a
    /// reader's buffers for each. `parse(bytes, basePath)` answers exactly as `parse(_:at:)`.
    public static func parsingMany<T>(
        _ body: (_ parse: (ArraySlice<UInt8>, DataPath) throws -> NewValue) throws -> T
    ) rethrows -> T {
        var reader: TreeReader? = nil
        defer { reader?.release() }
        return try body { bytes, basePath in
            try bytes.withUnsafeBytes { buffer in
                guard let base = buffer.baseAddress, buffer.count > 0 else { throw CoreError.unexpectedEnd(0) }
                let scanner = JSONScanner(base: base.assumingMemoryBound(to: UInt8.self), count: buffer.count)
                if reader == nil {
                    reader = TreeReader(scanner: scanner, basePath: basePath)
                } else {
                    reader!.restart(scanner: scanner, basePath: basePath)
                }
                return try reader!.whole()
            }
        }
    }
}

/// The recursive reader behind `TreeParser`.
///
/// Hot-path notes: strings without escapes are turned into `String`s straight from the input
/// (anything unusual is handed to `JSONScanner.scanString`, which reports the exact error);
/// keys seen at the same depth and member position as before are reused from a small cache
/// (no `String`, validation or integer parsing); members are kept in a manually managed stack
/// and moved into the finished `Children`; keys are sorted on 16-byte prefixes, and only when
/// the document does not already have them in order.
struct TreeReader {
    var scanner: JSONScanner
    private(set) var basePath: DataPath
    var serverValues: [ServerValuePlacement] = []
    /// The path of the value being read, relative to `basePath`, `depth` entries: for an
    /// object member the offset of its key's opening quote, for an array element -(index + 1).
    /// Keys are only rebuilt for messages and server-value paths.
    let path: UnsafeMutablePointer<Int>
    var depth = 0
    /// Members of the objects and arrays being read, innermost last.
    var members = TreeMemberStack(capacity: 16)
    /// Recently read keys, by depth and member position (allocated on the second object).
    var keyCache: UnsafeMutablePointer<CachedTreeKey>?
    /// Set once the first object is read (the key cache is made for the second).
    var sawObject = false

    static let keyCacheSlots = 64

    init(scanner: JSONScanner, basePath: DataPath) {
        self.scanner = scanner
        self.basePath = basePath
        path = .allocate(capacity: KeyValidator.maxDepth + 2)
    }

    /// Reads the whole text as one value.
    mutating func whole() throws -> NewValue {
        let node = try value(rawDepth: 0)
        guard try scanner.skipWhitespace(), scanner.atEnd else {
            throw CoreError.trailingCharacters(scanner.byte(scanner.position))
        }
        return NewValue(node: node, serverValues: serverValues)
    }

    /// Makes the reader ready for another text, keeping its memory (and its key cache, which
    /// compares raw key bytes, so it holds across texts); members left by an error go.
    mutating func restart(scanner: JSONScanner, basePath: DataPath) {
        members.keys.deinitialize(count: members.count)
        members.nodes.deinitialize(count: members.count)
        members.count = 0
        depth = 0
        serverValues = []
        self.scanner = scanner
        self.basePath = basePath
    }

    /// Frees the reader's memory (members left by an error included).
    func release() {
        members.release()
        path.deallocate()
        if let keyCache {
            keyCache.deinitialize(count: Self.keyCacheSlots)
            keyCache.deallocate()
        }
    }

    /// The keys of the current path, relative to `basePath` (for messages and placements).
    func pathKeys() -> [ChildKey] {
        var result: [ChildKey] = []
        result.reserveCapacity(depth)
        for i in 0..<depth {
            let entry = path[i]
            if entry < 0 {
                result.append(ChildKey(String(-entry - 1)))
            } else {
                var copy = scanner
                copy.position = entry
                let key = (try? copy.scanString()) ?? nil
                result.append(ChildKey(key ?? ""))
            }
        }
        return result
    }

    var pathDescription: String { KeyValidator.describe(basePath.keys + pathKeys()) }

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
            return .leaf(.string(try readString()), priority: nil)
        case UInt8(ascii: "-"), 0x30...0x39:
            return .leaf(.number(try scanner.scanNumber(isFinal: true)!), priority: nil)
        case UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"):
            guard let literal = try scanner.scanLiteral() else {
                throw CoreError.unexpectedEnd(scanner.byte(scanner.end))
            }
            switch literal {
            case .true: return .leaf(.bool(true), priority: nil)
            case .false: return .leaf(.bool(false), priority: nil)
            case .null: return nil
            }
        default:
            throw CoreError.expectedValue(scanner.byte(scanner.position), found: b)
        }
    }

    /// Finds the end of the string whose opening quote is at `start`: the index of its closing
    /// quote and whether it has bytes over 0x7F, or nil when it has an escape, a control
    /// character or no end (the caller then lets `JSONScanner.scanString` read it).
    @inline(__always)
    func findStringEnd(from start: Int) -> (end: Int, nonASCII: Bool)? {
        let base = scanner.base
        let end = scanner.end
        var i = start &+ 1
        var high: UInt64 = 0
        while i &+ 8 <= end {
            let word = UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self)
            let quote = word ^ 0x2222_2222_2222_2222
            let slash = word ^ 0x5C5C_5C5C_5C5C_5C5C
            let ones: UInt64 = 0x0101_0101_0101_0101
            let hasQuote = (quote &- ones) & ~quote
            let hasSlash = (slash &- ones) & ~slash
            let hasLow = (word &- 0x2020_2020_2020_2020) & ~word
            if (hasQuote | hasSlash | hasLow) & TreeKeyBytes.highBits != 0 { break }
            high |= word
            i &+= 8
        }
        while i < end {
            let b = base[i]
            if b == 0x22 { return (i, high & TreeKeyBytes.highBits != 0) }
            if b == 0x5C || b < 0x20 { return nil }
            high |= UInt64(b)
            i &+= 1
        }
        return nil
    }

    /// Reads the string at the cursor (its opening quote).
    @inline(__always)
    mutating func readString() throws -> String {
        let start = scanner.position
        if let (close, nonASCII) = findStringEnd(from: start) {
            let bytes = UnsafeBufferPointer(start: scanner.base + start + 1, count: close - start - 1)
            if !nonASCII {
                scanner.position = close + 1
                return String(decoding: bytes, as: UTF8.self)
            }
            if TreeKeyBytes.isValidUTF8(bytes.baseAddress!, count: bytes.count) {
                scanner.position = close + 1
                return String(decoding: bytes, as: UTF8.self)
            }
        }
        return try scanStringExactly(from: start)
    }

    /// The scanner's full string reading (escapes, exact errors).
    mutating func scanStringExactly(from start: Int) throws -> String {
        scanner.position = start
        guard let s = try scanner.scanString() else { throw CoreError.unexpectedEnd(scanner.byte(scanner.end)) }
        return s
    }

    /// Adds an entry to the path, checking the depth limit.
    @inline(__always)
    mutating func push(_ entry: Int) throws {
        path[depth] = entry
        depth += 1
        if basePath.depth + depth > KeyValidator.maxDepth {
            throw CoreError.pathTooDeep(pathDescription)
        }
    }

    mutating func array(rawDepth: Int) throws -> Node? {
        guard rawDepth <= JSONParser.maxNesting else {
            throw CoreError.nestingTooDeep(byte: scanner.byte(scanner.position))
        }
        scanner.position += 1
        if try next() == UInt8(ascii: "]") {
            scanner.position += 1
            return nil
        }
        let base = members.count
        let indexKeys = treeIndexKeys
        let noInfo = TreeKeyBytes.SortInfo(w0: 0, w1: 0, flags: 0)
        var index = 0
        while true {
            try push(-(index + 1))
            if let node = try value(rawDepth: rawDepth) {
                members.push(index < indexKeys.count ? indexKeys[index] : ChildKey(String(index)), node, noInfo)
            }
            depth -= 1
            index += 1
            let c = try next()
            scanner.position += 1
            if c == UInt8(ascii: ",") { continue }
            if c == UInt8(ascii: "]") { break }
            throw CoreError.expectedAfterElement(scanner.byte(scanner.position - 1))
        }
        if members.count == base { return nil }
        // Indices arrive in order: no sorting.
        return .children(members.take(from: base), priority: nil)
    }

    /// What a member key is.
    enum KeyKind { case child, priority, value, serverValue }

    /// A key read from the input.
    struct ScannedKey {
        var key: ChildKey
        var info: TreeKeyBytes.SortInfo
        var kind: KeyKind
        /// Set for an invalid child key (thrown after the ':' check, as the messages expect).
        var problem: KeyValidator.Problem?
    }

    /// Reads the key at the cursor (its opening quote), remembering it in `slot` of the cache.
    mutating func readKey(slot: Int) throws -> ScannedKey {
        let start = scanner.position
        let noInfo = TreeKeyBytes.SortInfo(w0: 0, w1: 0, flags: 0)
        if let (close, nonASCII) = findStringEnd(from: start) {
            let p = scanner.base + start + 1
            let n = close - start - 1
            if n > 1 && p[0] == UInt8(ascii: ".") {
                let kind: KeyKind?
                switch n {
                case 9 where Self.bytes(p, equal: ".priority"): kind = .priority
                case 6 where Self.bytes(p, equal: ".value"): kind = .value
                case 3 where Self.bytes(p, equal: ".sv"): kind = .serverValue
                default: kind = nil
                }
                if let kind {
                    scanner.position = close + 1
                    return ScannedKey(key: ChildKey(validated: "", intValue: nil), info: noInfo, kind: kind)
                }
            }
            let bytes = UnsafeBufferPointer(start: p, count: n)
            if !nonASCII || TreeKeyBytes.isValidUTF8(p, count: n) {
                let string = String(decoding: bytes, as: UTF8.self)
                scanner.position = close + 1
                if let problem = KeyValidator.problem(bytes: bytes) {
                    return ScannedKey(key: ChildKey(string), info: noInfo, kind: .child, problem: problem)
                }
                let intValue = TreeKeyBytes.intValue(p, count: n)
                let key = ChildKey(validated: string, intValue: intValue)
                let readable = scanner.end - (start + 1)
                let info = TreeKeyBytes.sortInfo(p, count: n, readable: readable, isInt: intValue != nil)
                if n <= 16 && readable >= 17, let keyCache {
                    let entry = keyCache + slot
                    entry.pointee.rawLo = UnsafeRawPointer(p).loadUnaligned(as: UInt64.self) & TreeKeyBytes.lowMask(n)
                    entry.pointee.rawHi =
                        n > 8 ? UnsafeRawPointer(p + 8).loadUnaligned(as: UInt64.self) & TreeKeyBytes.lowMask(n - 8) : 0
                    entry.pointee.count = n
                    entry.pointee.key = key
                    entry.pointee.info = info
                }
                return ScannedKey(key: key, info: info, kind: .child)
            }
        }
        // Escapes, control characters, invalid UTF-8 or a cut-off key.
        let string = try scanStringExactly(from: start)
        switch string {
        case ".priority": return ScannedKey(key: ChildKey(validated: "", intValue: nil), info: noInfo, kind: .priority)
        case ".value": return ScannedKey(key: ChildKey(validated: "", intValue: nil), info: noInfo, kind: .value)
        case ".sv": return ScannedKey(key: ChildKey(validated: "", intValue: nil), info: noInfo, kind: .serverValue)
        default: break
        }
        let key = ChildKey(string)
        var copy = string
        return copy.withUTF8 { bytes in
            if let problem = KeyValidator.problem(bytes: bytes) {
                return ScannedKey(key: key, info: noInfo, kind: .child, problem: problem)
            }
            let info = TreeKeyBytes.sortInfo(
                bytes.baseAddress!,
                count: bytes.count,
                readable: bytes.count,
                isInt: key.intValue != nil
            )
            return ScannedKey(key: key, info: info, kind: .child)
        }
    }

    @inline(__always)
    static func bytes(_ p: UnsafePointer<UInt8>, equal text: StaticString) -> Bool {
        let t = text.utf8Start
        for i in 0..<text.utf8CodeUnitCount where p[i] != t[i] { return false }
        return true
    }

    mutating func object(rawDepth: Int) throws -> Node? {
        guard rawDepth <= JSONParser.maxNesting else {
            throw CoreError.nestingTooDeep(byte: scanner.byte(scanner.position))
        }
        let objectStart = scanner.position
        scanner.position += 1
        let base = members.count
        let serverValuesBefore = serverValues.count
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
        // The cache pays off from the second object on (keys repeat across siblings); a
        // document of one flat object, like most realtime writes, never allocates it.
        if keyCache == nil {
            if sawObject {
                let cache = UnsafeMutablePointer<CachedTreeKey>.allocate(capacity: Self.keyCacheSlots)
                cache.initialize(repeating: CachedTreeKey(), count: Self.keyCacheSlots)
                keyCache = cache
            }
            sawObject = true
        }
        let cache = keyCache
        var memberIndex = 0
        while true {
            guard try next() == 0x22 else { throw CoreError.expectedKey(scanner.byte(scanner.position)) }
            let keyStart = scanner.position
            let slot = (depth &* 8 &+ min(memberIndex, 7)) & (Self.keyCacheSlots - 1)
            memberIndex &+= 1
            var scanned: ScannedKey
            let entry = cache.map { $0 + slot }
            let cachedCount = entry?.pointee.count ?? 0
            if let entry,
                cachedCount != 0 && keyStart &+ 18 <= scanner.end
                    && (UnsafeRawPointer(scanner.base + keyStart + 1).loadUnaligned(as: UInt64.self)
                        & TreeKeyBytes.lowMask(cachedCount)) == entry.pointee.rawLo
                    && (cachedCount <= 8
                        || (UnsafeRawPointer(scanner.base + keyStart + 9).loadUnaligned(as: UInt64.self)
                            & TreeKeyBytes.lowMask(cachedCount &- 8)) == entry.pointee.rawHi)
                    && scanner.base[keyStart &+ 1 &+ cachedCount] == 0x22
            {
                scanned = ScannedKey(key: entry.pointee.key, info: entry.pointee.info, kind: .child)
                scanner.position = keyStart &+ cachedCount &+ 2
            } else {
                scanned = try readKey(slot: slot)
            }
            guard try next() == UInt8(ascii: ":") else { throw CoreError.expectedColon(scanner.byte(scanner.position)) }
            scanner.position += 1
            switch scanned.kind {
            case .priority:
                priority = try priorityValue(rawDepth: rawDepth)
            case .value:
                sawValue = true
                if sawChild { throw CoreError.valueWithChildren(at: pathDescription) }
                valueNode = try value(rawDepth: rawDepth)
            case .serverValue:
                _ = try next()
                serverValue = try JSONParser.readValue(&scanner, depth: rawDepth)
            case .child:
                sawChild = true
                if sawValue { throw CoreError.valueWithChildren(at: pathDescription) }
                if let problem = scanned.problem {
                    throw KeyValidator.error(
                        problem,
                        key: scanned.key.string,
                        path: KeyValidator.describe(basePath.keys + pathKeys() + [scanned.key])
                    )
                }
                try push(keyStart)
                if let node = try value(rawDepth: rawDepth) {
                    members.push(scanned.key, node, scanned.info)
                } else {
                    nulls.append((scanned.key, members.count - base))
                }
                depth -= 1
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
            serverValues.append(ServerValuePlacement(path: DataPath(keys: pathKeys()), value: parsed))
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
        guard let node else {
            // Only server values inside (`{"a": {".sv": ...}, ".priority": 1}`): keep the
            // priority on an empty node, which `ServerValueResolver.resolve` fills in.
            if priority != nil && serverValues[serverValuesBefore...].contains(where: { !$0.isPriority }) {
                return .children(Children(), priority: priority)
            }
            return nil
        }
        return priority == nil ? node : node.withPriority(priority)
    }

    /// The members collected since `base`, sorted (duplicates: the last wins), removed from
    /// the member stack; nil when there are none.
    mutating func takeMembers(from base: Int, nulls: [(key: ChildKey, position: Int)]) -> Children? {
        let count = members.count - base
        if nulls.isEmpty {
            if count == 0 { return nil }
            var i = base + 1
            while i < members.count {
                if members.compare(i - 1, i) >= 0 { break }
                i += 1
            }
            if i == members.count { return members.take(from: base) }
            return sortedMembers(from: base)
        }
        // Nulls: merge them back in document order, sort stably, keep the last of equal
        // keys, drop nulls.
        var keys: [ChildKey] = []
        var nodes: [Node?] = []
        keys.reserveCapacity(count + nulls.count)
        nodes.reserveCapacity(count + nulls.count)
        var nullIndex = 0
        for i in 0...count {
            while nullIndex < nulls.count && nulls[nullIndex].position == i {
                keys.append(nulls[nullIndex].key)
                nodes.append(nil)
                nullIndex += 1
            }
            if i < count {
                keys.append((members.keys + base + i).move())
                nodes.append((members.nodes + base + i).move())
            }
        }
        members.count = base
        let pairs = Children.sortedLastWins(keys: keys, nodes: nodes)
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

    /// Sorts the members from `base` on (stable; the last of equal keys wins) into `Children`.
    mutating func sortedMembers(from base: Int) -> Children {
        let count = members.count - base
        return withUnsafeTemporaryAllocation(of: Int.self, capacity: count) { order in
            withUnsafeTemporaryAllocation(of: Bool.self, capacity: count) { keep in
                for j in 0..<count { order[j] = j }
                if count <= 32 {
                    for i in 1..<count {
                        let x = order[i]
                        var j = i
                        while j > 0 && members.compare(base + order[j - 1], base + x) > 0 {
                            order[j] = order[j - 1]
                            j -= 1
                        }
                        order[j] = x
                    }
                } else {
                    let stack = members
                    var order = order
                    order.sort {
                        let c = stack.compare(base + $0, base + $1)
                        return c != 0 ? c < 0 : $0 < $1
                    }
                }
                var kept = 0
                for j in 0..<count {
                    keep[j] = j == count - 1 || members.compare(base + order[j], base + order[j + 1]) != 0
                    if keep[j] { kept += 1 }
                }
                return members.take(from: base, order: order, kept: kept, keep: keep)
            }
        }
    }

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
