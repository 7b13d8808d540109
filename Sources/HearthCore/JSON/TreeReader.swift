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
}
