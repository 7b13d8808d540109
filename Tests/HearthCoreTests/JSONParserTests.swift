import Testing

@testable import HearthCore

struct JSONParserTests {
    @Test func parsesAllKinds() throws {
        let value = try JSONParser.parse(#" {"a": [1, -2.5e2, "s", true, false, null], "b": {}, "a": 3} "#)
        guard case .object(let members) = value else { Issue.record("not an object"); return }
        #expect(members.map(\.0) == ["a", "b", "a"])
        #expect(members[0].1 == .array([.number(1), .number(-250), .string("s"), .bool(true), .bool(false), .null]))
        #expect(value["a"] == .number(3))  // last duplicate wins on lookup
        #expect(value["b"] == .object([]))
    }

    @Test func comments() throws {
        let rules = """
            // leading comment
            {
              /* block
                 comment */ "rules": { // trailing
                ".read": true /* inline */
              }
            }
            // end
            """
        let value = try JSONParser.parse(rules, allowComments: true)
        #expect(value["rules"]?[".read"] == .bool(true))
        #expect(
            coreErrorMessage { _ = try JSONParser.parse(rules) }
                == "Invalid JSON at byte 0: expected a value (object, array, string, number, true, false or null) but found '/'."
        )
        #expect(
            coreErrorMessage { _ = try JSONParser.parse("{/* open", allowComments: true) }
                == "Invalid JSON at byte 1: unterminated '/*' comment."
        )
        #expect(
            coreErrorMessage { _ = try JSONParser.parse("1 /x", allowComments: true) }
                == "Invalid JSON at byte 2: expected a value (object, array, string, number, true, false or null) but found '/'."
        )
    }

    @Test func nestingLimit() {
        let deep = String(repeating: "[", count: 600) + String(repeating: "]", count: 600)
        #expect(
            coreErrorMessage { _ = try JSONParser.parse(deep) }
                == "Invalid JSON at byte 512: arrays and objects can be nested at most 512 levels deep."
        )
    }

    @Test(
        arguments: [
            ("0", 0.0), ("-0.0", -0.0), ("1E2", 100), ("1e-2", 0.01), ("123456789.123456789", 123456789.123456789),
            ("12345678901234567890123", 1.2345678901234568e22), ("0.000000000000000000000000001", 1e-27),
            ("2.2250738585072014e-308", 2.2250738585072014e-308), ("4.9e-324", 5e-324),
            ("1.7976931348623157e308", 1.7976931348623157e308),
            ("9007199254740993", 9007199254740992), ("0.1", 0.1), ("100000000000000000000000", 1e23),
        ] as [(String, Double)]
    )
    func numbers(_ c: (String, Double)) throws {
        let value = try JSONParser.parse(c.0)
        #expect(value == .number(c.1))
        if c.1 == 0 { #expect(value.numberValue?.sign == c.1.sign) }
    }
}
