/// A streaming JSON reader for imports: fed a document in chunks of any size (a value may span
/// chunks), it reports each leaf and priority with its path, applying the same rules as
/// `TreeParser` (key validation, arrays as objects keyed "0", "1", ..., `.value` and
/// `.priority`). Memory stays bounded by the nesting depth and the longest token.
///
/// A node's `.priority` event comes after the events of its content, when the node closes, and
/// only when the node has content (a priority on a null node is dropped, as Firebase does).
/// Server values (`.sv`) are refused: an import is plain data.
public struct JSONEventParser {
    /// One piece of the document.
    public enum Event: Hashable, Sendable {
        /// A leaf at `path` (relative to the document root).
        case leaf(path: [ChildKey], LeafValue)
        /// The priority of the node at `path`.
        case priority(path: [ChildKey], Priority)
    }

    enum Expect {
        case value, firstKeyOrEnd, key, colon, commaOrEnd, firstElementOrEnd, done
    }

    enum Member {
        case child, value, priority
    }

    struct Frame {
        var isObject: Bool
        /// How this frame's own value was reached from its parent.
        var member: Member
        var arrayIndex = 0
        /// What the member being read inside this frame is.
        var current: Member = .child
        var sawValue = false
        var sawChild = false
        var hasContent = false
        var pendingPriority: Priority?
    }

    private let basePathDepth: Int
    private var path: [ChildKey] = []
    private var frames: [Frame] = []
    private var expect: Expect = .value
    /// Unconsumed bytes carried over from earlier chunks (a partial token).
    private var pending: [UInt8] = []
    /// Document offset of the first byte of `pending` (or of the next chunk).
    private var offset = 0
    private var topLevelMember: Member = .child

    /// A parser for a document that will be written `basePathDepth` levels below the root
    /// (for the 32-level depth limit).
    public init(basePathDepth: Int = 0) {
        self.basePathDepth = basePathDepth
    }

    /// Parses the next chunk; `handler` receives the events completed by it.
    public mutating func feed(_ chunk: [UInt8], handler: (Event) throws -> Void) throws {
        try chunk.withUnsafeBytes { try feed(buffer: $0, handler: handler) }
    }

    /// Parses the next chunk from raw memory.
    public mutating func feed(buffer chunk: UnsafeRawBufferPointer, handler: (Event) throws -> Void) throws {
        guard chunk.count > 0 else { return }
        if pending.isEmpty {
            let consumed = try run(chunk, isFinal: false, handler: handler)
            if consumed < chunk.count {
                pending.append(contentsOf: UnsafeRawBufferPointer(rebasing: chunk[consumed...]))
            }
            offset += consumed
        } else {
            pending.append(contentsOf: chunk)
            try processPending(isFinal: false, handler: handler)
        }
    }

    /// Ends the document: parses what is left and checks the document is complete.
    public mutating func finish(handler: (Event) throws -> Void) throws {
        try processPending(isFinal: true, handler: handler)
        guard expect == .done else { throw CoreError.unexpectedEnd(offset) }
    }

    private mutating func processPending(isFinal: Bool, handler: (Event) throws -> Void) throws {
        let buffer = pending
        let consumed = try buffer.withUnsafeBytes { try run($0, isFinal: isFinal, handler: handler) }
        pending.removeFirst(consumed)
        offset += consumed
    }

    /// Parses as much of `buffer` as forms complete tokens; returns the bytes consumed.
    private mutating func run(
        _ buffer: UnsafeRawBufferPointer,
        isFinal: Bool,
        handler: (Event) throws -> Void
    ) throws -> Int {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return 0 }
        var s = JSONScanner(base: base.assumingMemoryBound(to: UInt8.self), count: buffer.count, documentOffset: offset)
        while true {
            _ = try s.skipWhitespace()
            guard let b = s.peek() else { return s.position }
            switch expect {
            case .value:
                switch b {
                case UInt8(ascii: "{"), UInt8(ascii: "["):
                    try open(isObject: b == UInt8(ascii: "{"), at: s.byte(s.position))
                    s.position += 1
                case 0x22:
                    guard let string = try s.scanString() else { return s.position }
                    try deliver(.string(string), at: s, handler: handler)
                case UInt8(ascii: "-"), 0x30...0x39:
                    let start = s.position
                    guard let number = try s.scanNumber(isFinal: isFinal) else { return start }
                    try deliver(.number(number), at: s, handler: handler)
                case UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"):
                    guard let literal = try s.scanLiteral() else {
                        if isFinal { throw CoreError.invalidLiteral(s.byte(s.position)) }
                        return s.position
                    }
                    switch literal {
                    case .true: try deliver(.bool(true), at: s, handler: handler)
                    case .false: try deliver(.bool(false), at: s, handler: handler)
                    case .null: try deliverNull(at: s)
                    }
                default:
                    throw CoreError.expectedValue(s.byte(s.position), found: b)
                }
            case .firstKeyOrEnd, .key:
                if b == UInt8(ascii: "}") && expect == .firstKeyOrEnd {
                    s.position += 1
                    try close(handler: handler)
                    continue
                }
                guard b == 0x22 else { throw CoreError.expectedKey(s.byte(s.position)) }
                guard let key = try s.scanString() else { return s.position }
                try beginMember(key)
                expect = .colon
            case .colon:
                guard b == UInt8(ascii: ":") else { throw CoreError.expectedColon(s.byte(s.position)) }
                s.position += 1
                expect = .value
            case .firstElementOrEnd:
                if b == UInt8(ascii: "]") {
                    s.position += 1
                    try close(handler: handler)
                    continue
                }
                try pushKey(ChildKey("0"))
                expect = .value
            case .commaOrEnd:
                let isObject = frames[frames.count - 1].isObject
                if b == UInt8(ascii: ",") {
                    s.position += 1
                    if isObject {
                        expect = .key
                    } else {
                        frames[frames.count - 1].arrayIndex += 1
                        try pushKey(ChildKey(String(frames[frames.count - 1].arrayIndex)))
                        expect = .value
                    }
                } else if b == (isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
                    s.position += 1
                    try close(handler: handler)
                } else {
                    throw isObject
                        ? CoreError.expectedAfterMember(s.byte(s.position))
                        : CoreError.expectedAfterElement(s.byte(s.position))
                }
            case .done:
                throw CoreError.trailingCharacters(s.byte(s.position))
            }
        }
    }

    private var currentMember: Member {
        frames.isEmpty ? topLevelMember : frames[frames.count - 1].current
    }

    private mutating func pushKey(_ key: ChildKey) throws {
        path.append(key)
        if basePathDepth + path.count > KeyValidator.maxDepth {
            throw CoreError.pathTooDeep(KeyValidator.describe(path))
        }
    }

    private mutating func beginMember(_ key: String) throws {
        let top = frames.count - 1
        switch key {
        case ".priority":
            frames[top].current = .priority
        case ".value":
            if frames[top].sawChild { throw CoreError.valueWithChildren(at: KeyValidator.describe(path)) }
            frames[top].sawValue = true
            frames[top].current = .value
        case ".sv":
            throw CoreError.serverValueInImport(at: KeyValidator.describe(path))
        default:
            if frames[top].sawValue { throw CoreError.valueWithChildren(at: KeyValidator.describe(path)) }
            var copy = key
            if let problem = copy.withUTF8({ KeyValidator.problem(bytes: $0) }) {
                throw KeyValidator.error(problem, key: key, path: KeyValidator.describe(path + [ChildKey(key)]))
            }
            frames[top].sawChild = true
            frames[top].current = .child
            try pushKey(ChildKey(key))
        }
    }

    private mutating func open(isObject: Bool, at byte: Int) throws {
        let member = currentMember
        if member == .priority {
            throw CoreError.invalidPriority(
                isObject ? "{...}" : "[...]",
                at: KeyValidator.describe(path) + "/.priority"
            )
        }
        guard frames.count < JSONParser.maxNesting else { throw CoreError.nestingTooDeep(byte: byte) }
        frames.append(Frame(isObject: isObject, member: member))
        expect = isObject ? .firstKeyOrEnd : .firstElementOrEnd
    }

    /// A primitive value has been read for the current member.
    private mutating func deliver(_ value: LeafValue, at s: JSONScanner, handler: (Event) throws -> Void) throws {
        switch currentMember {
        case .priority:
            switch value {
            case .number(let n): frames[frames.count - 1].pendingPriority = .number(n)
            case .string(let t): frames[frames.count - 1].pendingPriority = .string(t)
            case .bool(let b):
                throw CoreError.invalidPriority(b ? "true" : "false", at: KeyValidator.describe(path) + "/.priority")
            }
        case .child, .value:
            try handler(.leaf(path: path, value))
            if !frames.isEmpty { frames[frames.count - 1].hasContent = true }
        }
        endMember()
    }

    private mutating func deliverNull(at s: JSONScanner) throws {
        if currentMember == .priority {
            frames[frames.count - 1].pendingPriority = nil
        }
        endMember()
    }

    /// The value of the current member is complete: pop its key and move on.
    private mutating func endMember() {
        guard !frames.isEmpty else {
            expect = .done
            return
        }
        let top = frames.count - 1
        if !frames[top].isObject || frames[top].current == .child {
            path.removeLast()
        }
        expect = .commaOrEnd
    }

    private mutating func close(handler: (Event) throws -> Void) throws {
        let frame = frames.removeLast()
        if frame.hasContent, let priority = frame.pendingPriority {
            try handler(.priority(path: path, priority))
        }
        if !frames.isEmpty && frame.hasContent {
            frames[frames.count - 1].hasContent = true
        }
        endMember()
    }
}
