import Testing

@testable import HearthCore

struct JSONRendererTests {
    @Test(
        arguments: [
            (0.0, "0"), (-0.0, "0"), (1, "1"), (-1, "-1"), (42, "42"), (0.1, "0.1"), (-1.5, "-1.5"),
            (1e21, "1e+21"), (1e20, "100000000000000000000"), (123456789012345680000, "123456789012345680000"),
            (1.5e-7, "1.5e-7"), (1e-7, "1e-7"), (1e-6, "0.000001"), (0.000123, "0.000123"), (1.25e-6, "0.00000125"),
            (9007199254740992, "9007199254740992"), (9007199254740993, "9007199254740992"),
            (-9.2e18, "-9200000000000000000"), (1e300, "1e+300"), (-1e-300, "-1e-300"), (5e-324, "5e-324"),
            (2.2250738585072014e-308, "2.2250738585072014e-308"), (1.7976931348623157e308, "1.7976931348623157e+308"),
            (0.30000000000000004, "0.30000000000000004"), (123.456, "123.456"), (1.0e16, "10000000000000000"),
            (1.5e300, "1.5e+300"), (Double.infinity, "null"), (Double.nan, "null"),
        ] as [(Double, String)]
    )
    func numberFormatting(_ c: (Double, String)) {
        #expect(JSONRenderer.numberString(c.0) == c.1)
    }

    @Test(arguments: [
        ("a\"b", #""a\"b""#), ("a\\b", #""a\\b""#), ("\n\r\t\u{08}\u{0C}", #""\n\r\t\b\f""#),
        ("\u{01}\u{1F}", #""\u0001\u001f""#), ("\u{7F}é😀\u{2028}", "\"\u{7F}é😀\u{2028}\""), ("/", #""/""#),
        ("", #""""#),
    ])
    func stringEscaping(_ c: (String, String)) {
        var out: [UInt8] = []
        JSONRenderer.appendString(c.0, into: &out)
        #expect(String(decoding: out, as: UTF8.self) == c.1)
    }

    /// Firebase's rule: all keys `0|[1-9][0-9]*` and max key < 2 × count, missing indexes as null.
    @Test(arguments: [
        (#"{"0":"a","1":"b"}"#, #"["a","b"]"#),
        (#"{"0":1,"2":3}"#, "[1,null,3]"),  // max 2 < 4
        (#"{"0":1,"3":3}"#, "[1,null,null,3]"),  // max 3 < 4
        (#"{"0":1,"4":3}"#, #"{"0":1,"4":3}"#),  // max 4 = 4
        (#"{"1":1}"#, "[null,1]"),  // max 1 < 2
        (#"{"5":1}"#, #"{"5":1}"#),
        (#"{"00":1,"1":2}"#, #"{"00":1,"1":2}"#),  // leading zero: not an array index
        (#"{"-1":1,"0":2}"#, #"{"-1":1,"0":2}"#),
        (#"{"0":1,"a":2}"#, #"{"0":1,"a":2}"#),
        (#"{"0":{"0":true},"1":"x"}"#, #"[[true],"x"]"#),
        (#"{"a":{"1":1,"2":2}}"#, #"{"a":[null,1,2]}"#),
    ])
    func arrayConversion(_ c: (String, String)) throws {
        let parsed = try TreeParser.parse(c.0, at: .root).node
        #expect(text(parsed) == c.1)
        #expect(text(parsed, .export) == c.0)  // export never makes arrays
    }

    @Test func exportFormat() {
        let node = tree(#"{"b":{".value":1,".priority":2},"a":{"x":"y",".priority":"p"},"c":[1,2]}"#)
        #expect(
            text(node, .export) == #"{"a":{"x":"y",".priority":"p"},"b":{".value":1,".priority":2},"c":{"0":1,"1":2}}"#
        )
        #expect(text(node) == #"{"a":{"x":"y"},"b":1,"c":[1,2]}"#)
        #expect(text(nil) == "null")
        #expect(text(tree(#"{".value":true,".priority":1.5}"#), .export) == #"{".value":true,".priority":1.5}"#)
    }

    @Test(arguments: [
        #"{"a":1,"b":{"c":[1,2,{"d":"e"}],"f":"g\"h"},"i":true}"#,
        #"{"users":{"u1":{"name":"Ann","age":31.5},"u2":{"name":"Bob","tags":{"x":true}}}}"#,
        #"[1,2,3]"#, #""just a string \u00e9""#, #"-12.5e-3"#,
    ])
    func roundTrip(_ json: String) throws {
        let first = try TreeParser.parse(json, at: .root).node
        let again = try TreeParser.parse(text(first, .export), at: .root).node
        #expect(first == again)
        let plainAgain = try TreeParser.parse(text(first), at: .root).node
        #expect(plainAgain == first)
    }

    @Test func prettyPrint() {
        let compact = Array(#"{"a":1,"b":{"c":[1,{"d":"x:,{"}],"e":{}},"f":[]}"#.utf8)
        let pretty = String(decoding: JSONPretty.reformat(compact), as: UTF8.self)
        #expect(
            pretty == """
                {
                  "a" : 1,
                  "b" : {
                    "c" : [ 1, {
                      "d" : "x:,{"
                    } ],
                    "e" : { }
                  },
                  "f" : [ ]
                }
                """
        )
        #expect(String(decoding: JSONPretty.reformat(Array("null".utf8)), as: UTF8.self) == "null")
        #expect(
            String(decoding: JSONPretty.reformat(Array(#"{"error":"Permission denied"}"#.utf8)), as: UTF8.self)
                == "{\n  \"error\" : \"Permission denied\"\n}"
        )
    }

    @Test func genericJSONValueRendering() throws {
        let value = try JSONParser.parse(#"{"b":[1,null,"x"],"a":{"c":false}}"#)
        var out: [UInt8] = []
        JSONRenderer.render(value, into: &out)
        #expect(String(decoding: out, as: UTF8.self) == #"{"b":[1,null,"x"],"a":{"c":false}}"#)
    }
}
