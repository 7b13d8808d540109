import Testing

@testable import HearthCore

struct KeyOrderTests {
    /// Pairs (a, b) with a sorting strictly before b in Firebase's key order (`nameCompare`).
    static let ordered: [(String, String)] = [
        ("1", "2"),
        ("2", "10"),
        ("-1", "0"),
        ("-10", "-9"),
        ("-2147483648", "2147483647"),
        ("2147483647", "2147483648"),  // beyond Int32: a string, after every integer
        ("9", "a"),
        ("1", "01"),  // equal as integers: shorter first
        ("01", "001"),
        ("00000000000001", "2"),  // many leading zeros still an integer key
        ("-", "0a"),
        ("a", "b"),
        ("A", "a"),
        ("a", "aa"),
        ("Z", "_"),
        ("\u{1F600}", "\u{FF61}"),  // UTF-16: U+1F600 is D83D DE00 < FF61
        ("\u{E000}", "\u{FFFF}"),
        ("\u{D7FF}", "\u{1F600}"),
        ("é", "\u{1F600}"),
    ]

    @Test(arguments: ordered)
    func keyOrder(_ pair: (String, String)) {
        #expect(ChildKey.compare(ChildKey(pair.0), ChildKey(pair.1)) < 0)
        #expect(ChildKey.compare(ChildKey(pair.1), ChildKey(pair.0)) > 0)
    }

    @Test(arguments: [
        ("0", Int32(0)), ("-0", 0), ("007", 7), ("2147483647", Int32.max), ("-2147483648", Int32.min),
    ])
    func integerKeys(_ input: (String, Int32)) {
        #expect(ChildKey(input.0).intValue == input.1)
    }

    @Test(arguments: ["2147483648", "-2147483649", "1.5", "1e3", " 1", "+1", "", "-", "12345678901", "0x1"])
    func nonIntegerKeys(_ input: String) {
        #expect(ChildKey(input).intValue == nil)
    }

    /// Keys are equal exactly when their UTF-8 bytes are, and equal keys hash alike (small and
    /// heap strings, bridged or not).
    @Test func equalityAndHashFollowTheBytes() {
        let long = String(repeating: "k", count: 40)
        let pairs: [(String, String, Bool)] = [
            ("a", "a", true), ("a", "b", false), ("ab", "a", false), ("", "", true),
            ("7", "07", false), ("7", "7", true),
            (long, String(repeating: "k", count: 40), true), (long, long, true), (long, long + "x", false),
            // Canonically equivalent, different bytes: different keys, as in Firebase.
            ("é", "e\u{301}", false), ("\u{1F600}", "\u{1F600}", true),
        ]
        for (a, b, equal) in pairs {
            #expect((ChildKey(a) == ChildKey(b)) == equal, "\(a) \(b)")
            if equal { #expect(ChildKey(a).hashValue == ChildKey(b).hashValue) }
        }
        let set: Set<ChildKey> = [ChildKey("é"), ChildKey("e\u{301}"), ChildKey(long), ChildKey(long)]
        #expect(set.count == 3)
    }

    @Test func utf16OrderDiffersFromUTF8() {
        // In UTF-8 (and code points) U+FF61 < U+1F600; JavaScript compares UTF-16 units.
        #expect("\u{FF61}".utf8.lexicographicallyPrecedes("\u{1F600}".utf8))
        #expect(UTF16Order.compare("\u{FF61}", "\u{1F600}") > 0)
        #expect(UTF16Order.compare("a\u{1F600}", "a\u{FF61}") < 0)
        #expect(UTF16Order.compare("abc", "abc") == 0)
    }

    @Test func childrenSortedAndLastDuplicateWins() {
        let children = Children(unsorted: [
            (key("b"), Node.leaf(.number(1), priority: nil)),
            (key("10"), .leaf(.number(2), priority: nil)),
            (key("b"), .leaf(.number(3), priority: nil)),
            (key("2"), .leaf(.number(4), priority: nil)),
        ])
        #expect(children.keys.map(\.string) == ["2", "10", "b"])
        #expect(children[key("b")] == .leaf(.number(3), priority: nil))
    }
}
