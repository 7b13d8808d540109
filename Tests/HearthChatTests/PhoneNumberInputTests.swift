import Testing

@testable import HearthChat

/// What the normaliser accepts around the digits, and the garbage it refuses.
struct PhoneNumberInputTests {
    @Test(arguments: [
        NormalizationCase("+1 201 555 0123 ext. 12", "US", "+12015550123"),
        NormalizationCase("(201) 555-0123 x12", "US", "+12015550123"),
        NormalizationCase("201-555-0123 EXT 345", "US", "+12015550123"),
        NormalizationCase("201 555 0123 extension: 7", "US", "+12015550123"),
        NormalizationCase("201 555 0123 #7", "US", "+12015550123"),
        NormalizationCase("201 555 0123, 7", "US", "+12015550123"),
        NormalizationCase("+44 20 7946 0958;ext=12", "US", "+442079460958"),
        NormalizationCase("tel:+1-201-555-0123", "US", "+12015550123"),
        NormalizationCase("TEL:+49-30-123456", "GB", "+4930123456"),
        NormalizationCase("tel:+44-20-7946-0958;ext=12", "US", "+442079460958"),
        NormalizationCase("tel:863-1234;phone-context=+1-914-555", "US", "+19145558631234"),
        NormalizationCase("tel:7042;phone-context=example.com", "US", "+17042"),
        NormalizationCase("+1/201/555/0123", "US", "+12015550123"),
        NormalizationCase("[201] 555 0123", "US", "+12015550123"),
        NormalizationCase("\u{A0}+44\u{A0}20\u{A0}7946\u{A0}0958\u{A0}", "US", "+442079460958"),
        NormalizationCase("\u{FF0B}44 20 7946 0958", "US", "+442079460958"),
        NormalizationCase(
            "\u{FF10}\u{FF13}\u{FF0D}\u{FF11}\u{FF12}\u{FF13}\u{FF14}\u{FF0D}\u{FF15}\u{FF16}\u{FF17}\u{FF18}",
            "JP",
            "+81312345678"
        ),
        NormalizationCase(
            "\u{660}\u{665}\u{660} \u{661}\u{662}\u{663} \u{664}\u{665}\u{666}\u{667}",
            "AE",
            "+971501234567"
        ),
        NormalizationCase("201\u{2013}555\u{2013}0123", "US", "+12015550123"),
    ])
    func readsSeparatorsExtensionsAndURIs(_ c: NormalizationCase) {
        #expect(PhoneNumberNormalizer.normalize(c.input, defaultRegion: c.region) == c.expected)
    }

    @Test(arguments: [
        "", "   ", "+", "++44 20 7946 0958", "abc", "call me", "1-800-FLOWERS", "Phone: 020 7946 0958",
        "+1 201 555 0123 or so", "+1 201 555 0123 x", "+1 201 555 0123 ext", "201+555+0123", "201 555 0123\n",
        "201_555_0123", "+1 201 555 0123 x123456789012345678901", "tel:+1-201-555-0123;ext=", "tel:+1;+2",
        "tel:863-1234;phone-context=+1x914",
    ])
    func refusesGarbage(_ input: String) {
        #expect(PhoneNumberNormalizer.normalize(input, defaultRegion: "US") == nil)
    }

    @Test(arguments: [
        NormalizationCase("123", "US", nil), NormalizationCase("+44 12", "US", nil),
        NormalizationCase("+1", "US", nil), NormalizationCase("1234", "US", "+11234"),
        NormalizationCase("+999 123 4567", "US", nil), NormalizationCase("+0 123 456 789", "US", nil),
        NormalizationCase("00 999 1234", "DE", nil),
        // 16 digits with the calling code: over E.164's 15, though phonenumbers reads it (+4930123456789012).
        NormalizationCase("+49 30 1234567890 12", "DE", nil),
        NormalizationCase("+49 30 1234567890 1", "DE", "+493012345678901"),
    ])
    func boundsTheNumberOfDigits(_ c: NormalizationCase) {
        #expect(PhoneNumberNormalizer.normalize(c.input, defaultRegion: c.region) == c.expected)
    }

    @Test func refusesInputOverSixtyFourCharactersUnread() {
        let padded = "+1 201 555 0123" + String(repeating: " ", count: 49)
        #expect(padded.unicodeScalars.count == 64)
        #expect(PhoneNumberNormalizer.normalize(padded, defaultRegion: "US") == "+12015550123")
        #expect(PhoneNumberNormalizer.normalize(padded + " ", defaultRegion: "US") == nil)
        #expect(PhoneNumberInput(String(repeating: "1", count: 10_000)) == nil)
        #expect(PhoneNumberInput(String(repeating: "😀", count: 65)) == nil)
    }

    @Test func readsThePlusAndTheDigits() {
        #expect(
            PhoneNumberInput("+44 (0)20 7946-0958")
                == PhoneNumberInput(hasPlus: true, digits: [4, 4, 0, 2, 0, 7, 9, 4, 6, 0, 9, 5, 8])
        )
        #expect(PhoneNumberInput("(+44) 20") == PhoneNumberInput(hasPlus: true, digits: [4, 4, 2, 0]))
        #expect(PhoneNumberInput("0171 x 12") == PhoneNumberInput(hasPlus: false, digits: [0, 1, 7, 1]))
    }
}
