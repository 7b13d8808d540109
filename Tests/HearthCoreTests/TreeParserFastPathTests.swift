import Foundation
import Testing

@testable import HearthCore

/// Checks of `TreeParser`'s fast paths (key cache, prefix sorting, moved members, direct
/// string creation) against a plain reference built from `JSONParser`.
struct TreeParserFastPathTests {
    /// Firebase semantics without `.priority`/`.value`/`.sv`, the slow obvious way.
    static func reference(_ value: JSONValue) -> Node? {
        switch value {
        case .null: return nil
        case .bool(let b): return .leaf(.bool(b), priority: nil)
        case .number(let n): return .leaf(.number(n), priority: nil)
        case .string(let s): return .leaf(.string(s), priority: nil)
        case .array(let elements):
            let pairs = elements.enumerated().compactMap { i, e in reference(e).map { (ChildKey(String(i)), $0) } }
            return pairs.isEmpty ? nil : .children(Children(unsorted: pairs), priority: nil)
        case .object(let members):
            // Last wins, a null included; then nulls dropped.
            // (By UTF-8 bytes: Swift's `==` on strings would merge "é" and "e\u{301}".)
            var last: [[UInt8]: Int] = [:]
            for (i, m) in members.enumerated() { last[Array(m.0.utf8)] = i }
            let pairs = members.enumerated().compactMap { i, m -> (ChildKey, Node)? in
                guard last[Array(m.0.utf8)] == i, let node = reference(m.1) else { return nil }
                return (ChildKey(m.0), node)
            }
            return pairs.isEmpty ? nil : .children(Children(unsorted: pairs), priority: nil)
        }
    }

    static func check(_ json: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let parsed = try TreeParser.parse(json, at: .root).node
        let expected = reference(try JSONParser.parse(Array(json.utf8)))
        #expect(parsed == expected, "\(json)", sourceLocation: sourceLocation)
        if case .children(let children, _)? = parsed {
            // Keys strictly ascending, integer values as ChildKey computes them.
            for (a, b) in zip(children.keys, children.keys.dropFirst()) {
                #expect(ChildKey.compare(a, b) < 0, sourceLocation: sourceLocation)
            }
            for k in children.keys {
                #expect(k.intValue == ChildKey(k.string).intValue, "\(k.string)", sourceLocation: sourceLocation)
            }
        }
    }

    /// Keys meant to stress ordering: integers (with signs, leading zeros, out of range),
    /// shared 16-byte prefixes, non-ASCII at both ends of the UTF-16/UTF-8 order difference.
    static let keyPool: [String] = [
        "a", "b", "ab", "aa", "A", "Z", "_", "~", "0", "1", "9", "10", "-1", "-0", "00", "007", "7",
        "2147483647", "2147483648", "-2147483648", "-2147483649", "4294967296", "12345678901",
        "1a", "-", "--1", "é", "e\u{301}", "\u{E000}", "\u{FFFD}", "😀", "𝄞", "a😀", "a\u{FFFF}",
        "abcdefghijklmnop", "abcdefghijklmnoq", "abcdefghijklmnopq", "abcdefghijklmnopr",
        "abcdefgh", "abcdefghi", "abcdefg", "0123456789abcdef", "-NzYzNDU2Nzg5MDEy", "-NzYzNDU2Nzg5MDEz",
        "name", "email", "age", "tags", "profile", "ü", "üü", "中文", "key with spaces",
    ]

    static func jsonString(_ s: String, escape: Bool) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            if escape && scalar.value > 0x7F && scalar.value < 0x10000 {
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            } else if escape && scalar == "a" {
                out += "\\u0061"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    @Test func randomObjectsMatchReference() throws {
        var rng = SystemRandomNumberGenerator()
        for round in 0..<400 {
            let count = [1, 2, 3, 8, 20, 40, 100][round % 7]
            var members: [String] = []
            for _ in 0..<count {
                let key = Self.keyPool.randomElement(using: &rng)!
                let value: String
                switch Int.random(in: 0..<6, using: &rng) {
                case 0: value = "null"
                case 1: value = String(Int.random(in: -5...5, using: &rng))
                case 2: value = #"{"x":"# + String(Int.random(in: 0...3, using: &rng)) + #","y":null}"#
                case 3: value = "[null,true,\"s\"]"
                case 4: value = Self.jsonString("v ü😀", escape: Bool.random(using: &rng))
                default: value = "{}"
                }
                members.append(Self.jsonString(key, escape: round % 3 == 0) + ":" + value)
            }
            try Self.check("{" + members.joined(separator: ",") + "}")
            // The same shape twice in a row, nested: exercises the key cache.
            try Self.check(
                "[{" + members.joined(separator: ",") + "},{" + members.reversed().joined(separator: ",") + "}]"
            )
        }
    }

    @Test func repeatedShapesUseCachedKeys() throws {
        var records: [String] = []
        for i in 0..<300 {
            // Same keys each time, in a non-sorted order; some records differ in one key, one
            // key is a prefix of another, one is 16 bytes long, one 17.
            let odd = i % 7 == 0 ? #""nam":1,"# : ""
            records.append(
                #""r\#(String(format: "%04d", i))":{"name":"n\#(i)",\#(odd)"email":"e","10":1,"9":2,"abcdefghijklmnop":3,"abcdefghijklmnopq":4,"nameX":5}"#
            )
        }
        try Self.check("{" + records.joined(separator: ",") + "}")
    }

    @Test func unsortedAndDuplicateKeys() throws {
        #expect(text(tree(#"{"c":1,"b":2,"a":3,"b":4}"#)) == #"{"a":3,"b":4,"c":1}"#)
        #expect(text(tree(#"{"b":1,"a":2,"b":null,"c":3}"#)) == #"{"a":2,"c":3}"#)
        #expect(text(tree(#"{"a":1,"a":2,"a":3}"#)) == #"{"a":3}"#)
        // Over 32 members: the general sort.
        let many = (0..<50).reversed().map { #""k\#($0)":\#($0)"# }.joined(separator: ",")
        let sorted = (0..<50).map { "k\($0)" }.sorted().map { #""\#($0)":\#($0.dropFirst())"# }.joined(separator: ",")
        #expect(
            text(tree("{" + many + #","k3":"last"}"#)) == "{"
                + sorted.replacingOccurrences(of: #""k3":3"#, with: #""k3":"last""#) + "}"
        )
    }

    @Test func unicodeAndEscapedKeys() throws {
        // UTF-16 order: U+E000 and U+FFFD sort after the supplementary 😀.
        #expect(
            text(tree(#"{"\#u{E000}":1,"😀":2,"\#u{FFFD}":3,"é":4}"#)) == #"{"é":4,"😀":2,"\#u{E000}":1,"\#u{FFFD}":3}"#
        )
        // An escaped key equals its plain spelling (a duplicate).
        #expect(text(tree(#"{"ab":1,"\u0061b":2}"#)) == #"{"ab":2}"#)
        #expect(text(tree(#"{"\u00e9":1,"é":2}"#)) == #"{"é":2}"#)
        // Escaped special keys still count as special.
        #expect(text(tree(#"{"a":1,"\u002epriority":7}"#), .export) == #"{"a":1,".priority":7}"#)
        // Integer keys from bytes.
        guard case .children(let children, _)? = tree(#"{"-5":1,"007":2,"2147483648":3,"x":4}"#) else {
            Issue.record("not children")
            return
        }
        #expect(children.keys.map(\.string) == ["-5", "007", "2147483648", "x"])
        #expect(children.keys.map(\.intValue) == [-5, 7, nil, nil])
    }

    @Test func nonASCIIStrings() throws {
        #expect(text(tree(#"{"a":"Zürich 😀 中文","b":"\u00fc"}"#)) == #"{"a":"Zürich 😀 中文","b":"ü"}"#)
        // Invalid UTF-8 in a key and in a value: the scanner's exact messages.
        let key: [UInt8] = Array(#"{"a"#.utf8) + [0xF1, 0x80, 0x80] + Array(#"":1}"#.utf8)
        #expect(
            coreErrorMessage { _ = try TreeParser.parse(key, at: .root) }
                == "Invalid JSON at byte 3: invalid UTF-8; JSON text must be UTF-8 encoded."
        )
        let value: [UInt8] = Array(#"{"a":"xy"#.utf8) + [0xE0, 0x80, 0x80] + Array(#""}"#.utf8)
        #expect(
            coreErrorMessage { _ = try TreeParser.parse(value, at: .root) }
                == "Invalid JSON at byte 8: invalid UTF-8; JSON text must be UTF-8 encoded."
        )
    }

    @Test func keyErrorsAfterCachedKeys() {
        let message = coreErrorMessage {
            _ = try TreeParser.parse(#"[{"name":1,"e":2},{"name":1,"e.x":2}]"#, at: try DataPath.parse("/p"))
        }
        #expect(
            message
                == "Invalid key 'e.x' in path '/p/1/e.x': keys cannot contain '.', '#', '$', '[', ']', '/' or control characters."
        )
        let escaped = coreErrorMessage { _ = try TreeParser.parse(#"{"a\u002fb":{"c":1}}"#, at: .root) }
        #expect(
            escaped
                == "Invalid key 'a/b' in path '/a/b': keys cannot contain '.', '#', '$', '[', ']', '/' or control characters."
        )
        let deepKey = coreErrorMessage {
            _ = try TreeParser.parse(#"{"x\ty":{"b":[1,{"c":{".sv":"nope"}}]}}"#, at: .root)
        }
        #expect(
            deepKey
                == "Invalid key 'x\ty' in path '/x\ty': keys cannot contain '.', '#', '$', '[', ']', '/' or control characters."
        )
        let rawControl = coreErrorMessage { _ = try TreeParser.parse("{\"x\ty\":1}", at: .root) }
        #expect(
            rawControl
                == "Invalid JSON at byte 3: control characters must be escaped inside strings (as \\n, \\t or \\u00XX)."
        )
        let svPath = coreErrorMessage {
            _ = try TreeParser.parse(#"{"k\u00e9":{"b":[1,{"c":{".sv":"nope"}}]}}"#, at: .root)
        }
        #expect(
            svPath
                == #"Invalid server value '{".sv":"nope"}' at '/ké/b/1/c': accepted are {".sv": "timestamp"} and {".sv": {"increment": number}}."#
        )
    }

    @Test func serverValuePathsAfterEscapedKeys() throws {
        let value = try TreeParser.parse(#"{"\u0061":[0,{"b":{".sv":"timestamp"}}]}"#, at: try DataPath.parse("/x"))
        #expect(value.serverValues == [ServerValuePlacement(path: try DataPath.parse("/a/1/b"), value: .timestamp)])
    }

    @Test func priorityKeptWhenOnlyServerValues() throws {
        let value = try TreeParser.parse(#"{"a":{".sv":"timestamp"},".priority":5}"#, at: .root)
        #expect(value.serverValues == [ServerValuePlacement(path: try DataPath.parse("/a"), value: .timestamp)])
        let resolved = ServerValueResolver.resolve(value, now: 1000, existing: { _ in nil })
        #expect(text(resolved, .export) == #"{"a":1000,".priority":5}"#)

        let nested = try TreeParser.parse(
            #"{"x":{"y":{"z":{".sv":{"increment":2}}},".priority":"p"},"w":1}"#,
            at: .root
        )
        let resolvedNested = ServerValueResolver.resolve(nested, now: 0, existing: { _ in nil })
        #expect(text(resolvedNested, .export) == #"{"w":1,"x":{"y":{"z":2},".priority":"p"}}"#)

        let valueForm = try TreeParser.parse(#"{".value":{".sv":"timestamp"},".priority":3}"#, at: .root)
        #expect(
            text(ServerValueResolver.resolve(valueForm, now: 7, existing: { _ in nil }), .export)
                == #"{".value":7,".priority":3}"#
        )

        // Without server values an object left empty is still null, priority or not.
        #expect(try TreeParser.parse(#"{"a":null,".priority":5}"#, at: .root).node == nil)
        // A server-valued priority alone does not keep the node.
        #expect(try TreeParser.parse(#"{"a":{".priority":{".sv":"timestamp"}},".priority":5}"#, at: .root).node == nil)
    }
}
