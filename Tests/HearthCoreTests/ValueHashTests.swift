import Testing

@testable import HearthCore

/// Vectors produced by running the Firebase JS SDK's own algorithm in Node.js v20: the SDK's
/// `doubleToIEEE754String` (packages/database/src/core/util/util.ts) copied verbatim into a
/// scratch script outside this repository, with `LeafNode.hash`, `ChildrenNode.hash`
/// (children in PRIORITY_INDEX order, `nameCompare` tie-break), `priorityHashText` and the
/// SDK's `sha1` (UTF-8, SHA-1, padded base64) mirrored line by line; inputs are in the export
/// format, read as the SDK's `nodeFromJSON` reads them.
struct ValueHashTests {
    static let vectors: [(String, String)] = [
        ("1", "YPVfR2bXt/lcDjiQZ8pOkAd3qkQ="),
        ("0", "7ysMph9WPitGP7poMnMHMVPtUlI="),
        ("-0", "m/gA365Q5OBo06Bg8wdybAAiMSQ="),
        ("0.1", "wtQjBi5TBE+ZcdekL6INiSeCSQI="),
        ("-1.5", "M56MQ4H2xiM8kwGXZUDuLOryQxM="),
        ("42", "bQ5XV5L9riGZgerGMb/8Z87RxeI="),
        ("9007199254740991", "m4qsp/5BbIWTdjthNlnOX+WCTB0="),
        ("9007199254740993", "m4qsp/5BbIWTdjthNlnOX+WCTB0="),
        ("1e300", "PATxuxN46FZOmKG2i19P8ZCsqpw="),
        ("-1e300", "MMBrQK3wybyvSxrV2G1iOM3liM8="),
        ("5e-324", "AVzIJwC869iLHq/DQh6bzLDrVO4="),
        ("2.2250738585072014e-308", "O5l9DxuCo6i/M7tWjHQUB4Tnuno="),
        ("2.225073858507201e-308", "Ol7Uov3uZpcvDw++5wufRdkABQw="),
        ("1e-310", "ulfbMpNq0yBBzOCBEMzZwD6kZRk="),
        ("1e-300", "gAV59vXFMUsME/Mb0qgszm4v4BU="),
        ("3e-293", "37O8D29WeX67lJ+7oFFCcu4+IMg="),
        ("1.5e-292", "IMwG51MozRgL6YkFhKNKJA5wTUI="),
        ("4.4e-292", "oggqXoxn7l7CLE97rieuIt1sxwc="),
        ("123456.789", "dtcuLNeU7I6uqfNL5AOTV71bHFs="),
        ("true", "E5z61QM0lN/U2WsOnusszCTkR8M="),
        ("false", "aSSNoqcS4oQwJ2xxH20rvpp3zP0="),
        ("\"\"", "Ki0Xy0V6morg0TO3Sxi/jwugYDQ="),
        ("\"hello\"", "z6sRbrNLwbHX5fdjpvsTtWgXUFc="),
        ("\"héllo wörld 😀\"", "MV3mo5S75A+rKM39ijZHOqEx0zQ="),
        ("{\"a\":1}", "gIphxiFGusLh2VwSNVKSvNu90m4="),
        ("{\"b\":2,\"a\":1}", "AUZnXhNqrfbznYVxcCvNpzpjvTU="),
        ("{\"a\":{\"b\":{\"c\":\"deep\"}}}", "8CDSsaYCmXRi8LjwD+/bKPw1yOM="),
        ("{\".value\":5,\".priority\":1}", "oUSZ9VFwUrevB81K4PcN+7BHDJw="),
        ("{\".value\":\"x\",\".priority\":\"p\"}", "Ee+tTXV5cvjTnBMuKXMyU8fA5VY="),
        ("{\"a\":1,\".priority\":2.5}", "ScrusQpGJ/ZKY6GPfkBUS3JwCYg="),
        (
            "{\"a\":{\".value\":1,\".priority\":3},\"b\":{\".value\":2,\".priority\":1},\"c\":3}",
            "iQ1ts723pLlpnfh5RnGeaZsCcW0="
        ),
        (
            "{\"x\":{\".value\":1,\".priority\":\"z\"},\"y\":{\".value\":1,\".priority\":10},\"z\":1}",
            "od8GT8eECORyOzwncJM3oDjR0vE="
        ),
        ("{\"10\":1,\"9\":2,\"a\":3,\"-1\":4,\"007\":5,\"7\":6}", "UKOXkaEbKLgw2vPI1KKnkX3mgJU="),
        ("{\"\\uff61\":1,\"😀\":2,\"é\":3}", "H32cjPQgzzdyuoFYcR2ymAg1rRw="),
        ("[1,2,3]", "h6XOC3OcidJlNC1Velmi3gphgQk="),
        ("{\"a\":true,\"b\":false,\"c\":\"s\",\"d\":0.5}", "WatiQ8hapHi9A9yRwalEs3jAbDs="),
        ("{\"n\":-0}", "p4MVk17iQG8XOcPVGj7iqijwkBk="),
        ("{\"a\":{\"b\":1,\".priority\":-7},\".priority\":\"top\"}", "iycIucOLNzRrgzfKIbP7npHGKf4="),
        ("1.7976931348623157e308", "8R+ekVQmxs6ZWP0fdzFHxVeGnWo="),
        ("4503599627370496.5", "JsVfQO316oIlo3l9Yhl/DXmeMZA="),
        ("0.30000000000000004", "+ZMNbmKbExo3ViuO1Vc1Ct29UrI="),
        ("1024", "wau0qR1/ENr5V8ukd+aXvTH3Y5Q="),
        ("0.5", "u83SjUmpQucleXhADEt2TUBMwAE="),
        ("-2147483648", "mEKrhHe6qIqdc8QVs1DBt65OukQ="),
    ]

    @Test(arguments: vectors)
    func matchesSDK(_ vector: (String, String)) {
        #expect(ValueHash.hash(tree(vector.0)) == vector.1)
    }

    @Test func nullHashesToEmpty() {
        #expect(ValueHash.hash(nil) == "")
    }

    /// `doubleToIEEE754String` outputs from the SDK (same Node.js run): exact bits for most
    /// numbers, zeroed mantissas below 2^-971 where `Math.pow(2, 52 - ln)` overflows.
    @Test(
        arguments: [
            (1.0, "3ff0000000000000"), (-0.0, "8000000000000000"), (0.1, "3fb999999999999a"),
            (5e-324, "0000000000000001"), (2.2250738585072014e-308, "0010000000000000"),
            (2.225073858507201e-308, "000fffffffffffff"),
            (Double(bitPattern: 0x0010_0000_0000_0001), "0010000000000000"),
            (Double(bitPattern: 0x001F_FFFF_FFFF_FFFF), "0010000000000000"), (1e-300, "01a0000000000000"),
        ] as [(Double, String)]
    )
    func ieee754Quirks(_ c: (Double, String)) {
        #expect(IEEE754Hex.string(c.0) == c.1)
    }
}
