import HearthCore
import Testing

@testable import HearthStore

struct KeyEncodingTests {
    static let keys = [
        "-2147483648", "-5", "-1", "0", "00", "1", "01", "2", "10", "2147483647", "2147483648", "-2147483649",
        "a", "A", "b", "ab", "a b", "aa", "\u{FF61}", "\u{1F600}", "\u{E000}", "\u{D7FF}", "z\u{1F600}", "zz",
        "é", "e\u{301}", "-", "-a", "1a", "a1", "~", "\"q\"", "back\\slash",
    ]

    @Test func encodedSegmentsOrderLikeFirebaseKeys() {
        for a in Self.keys {
            for b in Self.keys {
                let ka = ChildKey(a)
                let kb = ChildKey(b)
                let expected = ChildKey.compare(ka, kb)
                let ea = KeyEncoding.encode(ka)
                let eb = KeyEncoding.encode(kb)
                let actual = ea == eb ? 0 : (ea.lexicographicallyPrecedes(eb) ? -1 : 1)
                #expect(actual == expected.signum(), "\(a) vs \(b)")
            }
        }
    }

    @Test func segmentsDecodeToTheSameKey() {
        for string in Self.keys {
            let encoded = KeyEncoding.encode(ChildKey(string))
            encoded.withUnsafeBytes { bytes in
                let end = KeyEncoding.segmentEnd(bytes, from: 0)
                #expect(end == encoded.count)
                #expect(KeyEncoding.decodeKey(bytes, start: 0, end: encoded.count).string == string)
            }
        }
    }

    @Test func aPathIsAPrefixOnlyOfItsSubtree() {
        let parent = KeyEncoding.encode(ChildKey("a"))
        let sibling = KeyEncoding.encode(ChildKey("ab"))
        #expect(!sibling.starts(with: parent))
        let one = KeyEncoding.encode(ChildKey("1"))
        let ten = KeyEncoding.encode(ChildKey("10"))
        #expect(!ten.starts(with: one))
    }

    @Test func indexValuesOrderNullBoolsNumbersStringsObjects() {
        let values: [IndexValueEncoding.Indexed] = [
            .missing, .leaf(.bool(false)), .leaf(.bool(true)), .leaf(.number(-.infinity)), .leaf(.number(-1e300)),
            .leaf(.number(-2)), .leaf(.number(-0.5)), .leaf(.number(0)), .leaf(.number(5e-324)), .leaf(.number(1)),
            .leaf(.number(2.5)), .leaf(.number(1e300)), .leaf(.string("")), .leaf(.string("\u{0}")),
            .leaf(.string("\u{0}a")), .leaf(.string("a")), .leaf(.string("a\u{0}")), .leaf(.string("ab")),
            .leaf(.string("\u{FF61}")), .leaf(.string("\u{1F600}")), .object,
        ]
        // "\u{1F600}" (surrogates) sorts before "\u{FF61}" in UTF-16 order.
        var expected = values
        expected.swapAt(18, 19)
        let encoded = expected.map(IndexValueEncoding.encode)
        for (a, b) in zip(encoded, encoded.dropFirst()) {
            #expect(a.lexicographicallyPrecedes(b))
        }
        #expect(IndexValueEncoding.encode(.leaf(.number(-0.0))) == IndexValueEncoding.encode(.leaf(.number(0))))
    }
}
