import Testing

@testable import HearthCore

struct TreeParserTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var id: String
        var input: String
        /// Expected `.export` rendering of the node ("null" for nil).
        var export: String
        var testDescription: String { id }
    }

    static let semanticCases: [Case] = [
        Case(id: "number", input: "42", export: "42"),
        Case(id: "string", input: #""hi""#, export: #""hi""#),
        Case(id: "bool", input: "true", export: "true"),
        Case(id: "null", input: "null", export: "null"),
        Case(id: "empty object", input: "{}", export: "null"),
        Case(id: "empty array", input: "[]", export: "null"),
        Case(id: "nulls dropped", input: #"{"a":null,"b":1}"#, export: #"{"b":1}"#),
        Case(id: "parent left empty vanishes", input: #"{"a":{"b":{}},"c":{"d":null}}"#, export: "null"),
        Case(id: "array to object", input: "[1,2,3]", export: #"{"0":1,"1":2,"2":3}"#),
        Case(id: "array null elements skipped", input: "[null,1,null,2]", export: #"{"1":1,"3":2}"#),
        Case(id: "nested arrays", input: "[[1],[]]", export: #"{"0":{"0":1}}"#),
        Case(id: "keys sorted", input: #"{"b":1,"10":2,"9":3,"a":4}"#, export: #"{"9":3,"10":2,"a":4,"b":1}"#),
        Case(id: "duplicate key last wins", input: #"{"a":1,"b":2,"a":3}"#, export: #"{"a":3,"b":2}"#),
        Case(id: "duplicate key null last removes", input: #"{"a":1,"a":null}"#, export: "null"),
        Case(id: "priority on object", input: #"{"a":1,".priority":5}"#, export: #"{"a":1,".priority":5}"#),
        Case(id: "priority string", input: #"{"a":1,".priority":"p"}"#, export: #"{"a":1,".priority":"p"}"#),
        Case(id: "priority null", input: #"{"a":1,".priority":null}"#, export: #"{"a":1}"#),
        Case(id: "value and priority", input: #"{".value":5,".priority":1}"#, export: #"{".value":5,".priority":1}"#),
        Case(id: "value alone", input: #"{".value":"x"}"#, export: #""x""#),
        Case(id: "value object", input: #"{".value":{"a":1},".priority":2}"#, export: #"{"a":1,".priority":2}"#),
        Case(id: "value null with priority", input: #"{".value":null,".priority":2}"#, export: "null"),
        Case(id: "priority only is null", input: #"{".priority":2}"#, export: "null"),
        Case(id: "escapes", input: #"{"k":"a\"b\\c\/d\n\u00e9\ud83d\ude00"}"#, export: #"{"k":"a\"b\\c/d\né😀"}"#),
        Case(id: "unicode key", input: #"{"😀":1,"é":2}"#, export: #"{"é":2,"😀":1}"#),
        Case(id: "whitespace", input: " \n\t{ \"a\" : [ 1 , 2 ] }\r\n", export: #"{"a":{"0":1,"1":2}}"#),
        Case(
            id: "integers exact",
            input: "[9007199254740992,-9007199254740992,123456789012]",
            export: #"{"0":9007199254740992,"1":-9007199254740992,"2":123456789012}"#
        ),
        Case(
            id: "decimals",
            input: "[0.1,1e-7,1.5E+3,-0,2.5e-324]",
            export: #"{"0":0.1,"1":1e-7,"2":1500,"3":0,"4":5e-324}"#
        ),
        Case(id: "underflow to zero", input: "1e-400", export: "0"),
    ]

    @Test(arguments: semanticCases)
    func semantics(_ c: Case) throws {
        let value = try TreeParser.parse(c.input, at: .root)
        #expect(text(value.node, .export) == c.export)
        #expect(value.serverValues.isEmpty)
    }

    @Test func serverValuesRecorded() throws {
        let value = try TreeParser.parse(
            #"{"a":{".sv":"timestamp"},"b":{"c":{".sv":{"increment":2}}},"d":1,"e":{"f":1,".priority":{".sv":"timestamp"}}}"#,
            at: try DataPath.parse("/x")
        )
        #expect(text(value.node, .export) == #"{"d":1,"e":{"f":1}}"#)
        #expect(
            value.serverValues == [
                ServerValuePlacement(path: try DataPath.parse("/a"), value: .timestamp),
                ServerValuePlacement(path: try DataPath.parse("/b/c"), value: .increment(2)),
                ServerValuePlacement(path: try DataPath.parse("/e"), value: .timestamp, isPriority: true),
            ]
        )
    }

    @Test func serverValueAtRoot() throws {
        let value = try TreeParser.parse(#"{".sv":"timestamp"}"#, at: .root)
        #expect(value.node == nil)
        #expect(value.serverValues == [ServerValuePlacement(path: .root, value: .timestamp)])
    }

    @Test func negativeZeroKeepsSign() throws {
        guard case .leaf(.number(let n), _)? = tree("-0") else { Issue.record("not a number"); return }
        #expect(n == 0 && n.sign == .minus)
    }

    @Test func depthLimitCountsBasePath() throws {
        let deep31 = String(repeating: #"{"a":"#, count: 31) + "1" + String(repeating: "}", count: 31)
        #expect(throws: Never.self) { try TreeParser.parse(deep31, at: try DataPath.parse("/x")) }
        let message = coreErrorMessage { _ = try TreeParser.parse(deep31, at: try DataPath.parse("/x/y")) }
        #expect(
            message == "Invalid path '/x/y" + String(repeating: "/a", count: 31)
                + "': data can be nested at most 32 levels deep."
        )
    }

    struct ErrorCase: Sendable, CustomTestStringConvertible {
        var id: String
        var input: String
        var message: String
        var testDescription: String { id }
    }

    static let errorCases: [ErrorCase] = [
        ErrorCase(
            id: "dot key",
            input: #"{"users":{"a.b":1}}"#,
            message:
                "Invalid key 'a.b' in path '/users/a.b': keys cannot contain '.', '#', '$', '[', ']', '/' or control characters."
        ),
        ErrorCase(
            id: "dollar key",
            input: #"{"$x":1}"#,
            message:
                "Invalid key '$x' in path '/$x': keys cannot contain '.', '#', '$', '[', ']', '/' or control characters."
        ),
        ErrorCase(
            id: "slash key",
            input: #"{"a/b":1}"#,
            message:
                "Invalid key 'a/b' in path '/a/b': keys cannot contain '.', '#', '$', '[', ']', '/' or control characters."
        ),
        ErrorCase(
            id: "control key",
            input: #"{"a\u0001":1}"#,
            message:
                "Invalid key 'a\u{01}' in path '/a\u{01}': keys cannot contain '.', '#', '$', '[', ']', '/' or control characters."
        ),
        ErrorCase(
            id: "del key",
            input: "{\"a\u{7F}\":1}",
            message:
                "Invalid key 'a\u{7F}' in path '/a\u{7F}': keys cannot contain '.', '#', '$', '[', ']', '/' or control characters."
        ),
        ErrorCase(
            id: "other dot key",
            input: #"{".foo":1}"#,
            message:
                "Invalid key '.foo' in path '/.foo': keys cannot contain '.', '#', '$', '[', ']', '/' or control characters."
        ),
        ErrorCase(
            id: "empty key",
            input: #"{"a":{"":1}}"#,
            message: "Invalid key '' in path '/a/': keys must be non-empty strings."
        ),
        ErrorCase(
            id: "long key",
            input: "{\"" + String(repeating: "k", count: 769) + "\":1}",
            message: "Invalid key '" + String(repeating: "k", count: 40) + "...' in path '/"
                + String(repeating: "k", count: 199) + "': keys can be at most 768 bytes of UTF-8."
        ),
        ErrorCase(
            id: "value with children",
            input: #"{"a":{".value":1,"b":2}}"#,
            message: "Invalid data at '/a': '.value' cannot be combined with keys other than '.priority'."
        ),
        ErrorCase(
            id: "children then value",
            input: #"{"b":2,".value":1}"#,
            message: "Invalid data at '/': '.value' cannot be combined with keys other than '.priority'."
        ),
        ErrorCase(
            id: "bool priority",
            input: #"{"a":{"b":1,".priority":true}}"#,
            message: "Invalid priority 'true' at '/a/.priority': '.priority' must be a number, a string or null."
        ),
        ErrorCase(
            id: "object priority",
            input: #"{"a":1,".priority":{"x":1}}"#,
            message: "Invalid priority '{\"x\":1}' at '/.priority': '.priority' must be a number, a string or null."
        ),
        ErrorCase(
            id: "bad sv",
            input: #"{"a":{".sv":"now"}}"#,
            message:
                "Invalid server value '{\".sv\":\"now\"}' at '/a': accepted are {\".sv\": \"timestamp\"} and {\".sv\": {\"increment\": number}}."
        ),
        ErrorCase(
            id: "sv increment string",
            input: #"{"a":{".sv":{"increment":"1"}}}"#,
            message:
                "Invalid server value '{\".sv\":{\"increment\":\"1\"}}' at '/a': accepted are {\".sv\": \"timestamp\"} and {\".sv\": {\"increment\": number}}."
        ),
        ErrorCase(
            id: "sv with sibling",
            input: #"{"a":{".sv":"timestamp","b":1}}"#,
            message:
                "Invalid server value '{\".sv\":\"timestamp\",\"b\":1}' at '/a': accepted are {\".sv\": \"timestamp\"} and {\".sv\": {\"increment\": number}}."
        ),
        ErrorCase(
            id: "missing comma",
            input: #"{"a":1 "b":2}"#,
            message: "Invalid JSON at byte 7: expected ',' or '}' after an object member."
        ),
        ErrorCase(
            id: "array missing comma",
            input: "[1 2]",
            message: "Invalid JSON at byte 3: expected ',' or ']' after an array element."
        ),
        ErrorCase(
            id: "missing colon",
            input: #"{"a" 1}"#,
            message: "Invalid JSON at byte 5: expected ':' after an object key."
        ),
        ErrorCase(
            id: "unquoted key",
            input: "{a:1}",
            message: "Invalid JSON at byte 1: expected a '\"'-quoted key."
        ),
        ErrorCase(
            id: "trailing comma",
            input: #"{"a":1,}"#,
            message: "Invalid JSON at byte 7: expected a '\"'-quoted key."
        ),
        ErrorCase(
            id: "trailing garbage",
            input: "1 x",
            message: "Invalid JSON at byte 2: unexpected characters after the JSON value."
        ),
        ErrorCase(
            id: "empty input",
            input: "",
            message: "Invalid JSON at byte 0: unexpected end of input."
        ),
        ErrorCase(
            id: "truncated",
            input: #"{"a":"#,
            message: "Invalid JSON at byte 5: unexpected end of input."
        ),
        ErrorCase(
            id: "unterminated string",
            input: #"{"a":"xyz"#,
            message: "Invalid JSON at byte 9: unexpected end of input."
        ),
        ErrorCase(
            id: "bad literal",
            input: "tru",
            message: "Invalid JSON at byte 3: unexpected end of input."
        ),
        ErrorCase(
            id: "bad literal 2",
            input: "nul1",
            message: "Invalid JSON at byte 0: expected 'true', 'false' or 'null'."
        ),
        ErrorCase(
            id: "bad value",
            input: "[1,?]",
            message:
                "Invalid JSON at byte 3: expected a value (object, array, string, number, true, false or null) but found '?'."
        ),
        ErrorCase(
            id: "leading zero",
            input: "[01]",
            message: "Invalid JSON at byte 2: expected ',' or ']' after an array element."
        ),
        ErrorCase(
            id: "bare point",
            input: "1.",
            message:
                "Invalid JSON at byte 0: invalid number; numbers are written as -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?."
        ),
        ErrorCase(
            id: "minus alone",
            input: "-x",
            message:
                "Invalid JSON at byte 0: invalid number; numbers are written as -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?."
        ),
        ErrorCase(
            id: "out of range",
            input: "[1e400]",
            message: "Invalid JSON at byte 1: number '1e400' is outside the range of a 64-bit double."
        ),
        ErrorCase(
            id: "bad escape",
            input: #""a\x""#,
            message:
                "Invalid JSON at byte 2: invalid escape; accepted are \\\", \\\\, \\/, \\b, \\f, \\n, \\r, \\t and \\uXXXX."
        ),
        ErrorCase(
            id: "lone high surrogate",
            input: #""\ud800x""#,
            message:
                "Invalid JSON at byte 1: '\\ud800' is an unpaired UTF-16 surrogate; only complete surrogate pairs are accepted."
        ),
        ErrorCase(
            id: "lone low surrogate",
            input: #""\udc00""#,
            message:
                "Invalid JSON at byte 1: '\\udc00' is an unpaired UTF-16 surrogate; only complete surrogate pairs are accepted."
        ),
        ErrorCase(
            id: "raw control in string",
            input: "\"a\nb\"",
            message:
                "Invalid JSON at byte 2: control characters must be escaped inside strings (as \\n, \\t or \\u00XX)."
        ),
        ErrorCase(
            id: "comment not allowed",
            input: "// x\n1",
            message:
                "Invalid JSON at byte 0: expected a value (object, array, string, number, true, false or null) but found '/'."
        ),
    ]

    @Test(arguments: errorCases)
    func errorMessages(_ c: ErrorCase) {
        #expect(coreErrorMessage { _ = try TreeParser.parse(c.input, at: .root) } == c.message)
    }

    @Test(
        arguments: [
            ([0x22, 0xFF, 0x22], 1), ([0x22, 0xC3, 0x28, 0x22], 1), ([0x22, 0xED, 0xA0, 0x80, 0x22], 1),
            ([0x22, 0xC0, 0x80, 0x22], 1), ([0x22, 0xF4, 0x90, 0x80, 0x80, 0x22], 1), ([0x22, 0x61, 0xE2, 0x82], 2),
        ] as [([UInt8], Int)]
    )
    func invalidUTF8(_ input: ([UInt8], Int)) {
        let message = coreErrorMessage { _ = try TreeParser.parse(input.0, at: .root) }
        if input.0.last == 0x82 {
            #expect(message == "Invalid JSON at byte 4: unexpected end of input.")
        } else {
            #expect(message == "Invalid JSON at byte \(input.1): invalid UTF-8; JSON text must be UTF-8 encoded.")
        }
    }

    @Test func errorCodes() {
        func code(_ json: String) -> CoreError.Code? {
            do { _ = try TreeParser.parse(json, at: .root) } catch let e as CoreError { return e.code } catch {}
            return nil
        }
        #expect(code("{") == .invalidJSON)
        #expect(code(#"{"a.b":1}"#) == .invalidKey)
        #expect(code(#"{".value":1,"a":1}"#) == .invalidData)
        #expect(code(String(repeating: "[", count: 40) + String(repeating: "]", count: 40)) == .tooDeep)
    }
}
