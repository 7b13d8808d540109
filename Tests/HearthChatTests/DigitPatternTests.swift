import Testing

@testable import HearthChat

/// The pattern matcher answers like Python's `re.match` / `re.fullmatch` on libphonenumber's patterns.
struct DigitPatternTests {
    static func digits(_ text: String) -> [UInt8] {
        text.utf8.map { $0 - UInt8(ascii: "0") }
    }

    /// (pattern, input, where Python's re.match ends or nil, whether re.fullmatch matches).
    @Test(
        arguments: [
            ("011", "01144", 3, false), ("011", "011", 3, true), ("0[09]", "0052", 2, false),
            ("0[09]", "0152", nil, false),
            ("0(?:0|11)", "01144", 3, false), ("810", "81044", 3, false), (#"[2-9]\d{9}|3\d{6}"#, "3123456", 7, true),
            (#"[2-9]\d{9}|3\d{6}"#, "2015550123", 10, true), (#"[2-9]\d{9}|3\d{6}"#, "1015550123", nil, false),
            (#"\d{4,6}"#, "1234567", 6, false), (#"\d{4,6}"#, "12345", 5, true), ("1?", "", 0, true),
            ("1?", "2", 0, false),
            ("0|180020", "1800201", 6, false), ("0|180020", "0", 1, true), (#"(183[12])|0"#, "18312", 4, false),
            // Alternatives in order: re.match takes the first that matches, fullmatch backtracks into the next.
            ("1|12", "12", 1, true), ("[^0]1", "21", 2, true), ("[^0]1", "01", nil, false),
            (#"(000[2569]\d{4,6})$|(?:(?:003768)0?)|0"#, "00021234", 8, true), (#"([89]\d{5})$"#, "812345", 6, true),
            (#"([89]\d{5})$"#, "8123456", nil, false), ("(?:1|6\\d)\\d{7}", "612345678", 9, true),
        ] as [(String, String, Int?, Bool)]
    )
    func matchesLikePython(_ c: (String, String, Int?, Bool)) throws {
        let pattern = try DigitPattern(c.0)
        #expect(pattern.prefixMatch(Self.digits(c.1))?.end == c.2)
        #expect(pattern.fullMatch(Self.digits(c.1)) == c.3)
    }

    @Test func capturesGroupsForTransformRules() throws {
        // Argentina: "0 11 15 …" — group 1 is the area code; "9$1" makes "9 11 …".
        let argentina = try #require(PhoneNumberingPlan.shared.region(code: "AR"))
        let match = try #require(argentina.nationalPrefixForParsing?.prefixMatch(Self.digits("0111512345678")))
        #expect(match.end == 5)
        #expect(match.groups == [1..<3])
        #expect(argentina.nationalPrefixTransform == [.digit(9), .group(1)])
        // Brazil: "0 21 11 9…": the carrier code is group 1, the number group 2; "$2" keeps the number.
        let brazil = try DigitPattern(#"(?:0|90)(?:(1[245]|2[1-35]|31|4[13]|[56]5|99)(\d{10,11}))?"#)
        let carrier = try #require(brazil.prefixMatch(Self.digits("02111912345678")))
        #expect(carrier.groups == [1..<3, 3..<14])
        // A group that takes no part is nil.
        let japan = try DigitPattern(#"(000[2569]\d{4,6})$|(?:(?:003768)0?)|0"#)
        #expect(try #require(japan.prefixMatch(Self.digits("0312345678"))).groups == [nil])
    }

    @Test(arguments: [
        ("a", "unexpected 'a'"), (#"\w"#, #"only \d is understood"#), ("(?=1)", "only (?: groups"), ("1*", "unbounded"),
        ("1+", "unbounded"), (#"\d{2,}"#, "open-ended"), (#"\d{30}"#, "out of bounds"), ("(12", "not closed"),
        ("[12", "not closed"), ("[9-2]", "empty"), ("1)", "unexpected ')'"), ("1{", "needs a number"),
    ])
    func refusesWhatItDoesNotUnderstand(_ c: (String, String)) {
        let error = #expect(throws: DigitPatternError.self) { try DigitPattern(c.0) }
        #expect(error?.description.contains(c.1) == true, "\(String(describing: error))")
        #expect(error?.pattern == c.0)
    }

    @Test func workIsBoundedOnAPathologicalPattern() throws {
        // Nested optional repetitions that would backtrack exponentially without the visited-state set.
        let pattern = try DigitPattern(#"(?:(?:1?){20}){20}2"#)
        let ones = [UInt8](repeating: 1, count: 20)
        #expect(pattern.fullMatch(ones) == false)
        #expect(pattern.fullMatch(ones + [2]))
    }
}
