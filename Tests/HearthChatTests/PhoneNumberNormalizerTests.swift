import Testing

@testable import HearthChat

/// One number as typed, the default region, and its E.164 form (nil: refused). Unless a comment says
/// otherwise, every expected value is what phonenumbers 9.0.43 (`parse` + `format_number(E164)`) answers.
struct NormalizationCase: Sendable, CustomTestStringConvertible {
    let input: String
    let region: String
    let expected: String?

    init(_ input: String, _ region: String, _ expected: String?) {
        self.input = input
        self.region = region
        self.expected = expected
    }

    var testDescription: String { "'\(input)' in \(region)" }
}

struct PhoneNumberNormalizerTests {
    static let northAmerica: [NormalizationCase] = [
        .init("(201) 555-0123", "US", "+12015550123"), .init("1-201-555-0123", "US", "+12015550123"),
        .init("+1 (201) 555-0123", "US", "+12015550123"), .init("201.555.0123", "US", "+12015550123"),
        .init("2015550123", "US", "+12015550123"), .init("011 44 20 7946 0958", "US", "+442079460958"),
        .init("555-0123", "US", "+15550123"), .init("+1 416 555 0123", "CA", "+14165550123"),
        .init("416-555-0123", "CA", "+14165550123"), .init("1 416 555 0123", "CA", "+14165550123"),
        .init("011 33 1 23 45 67 89", "CA", "+33123456789"),
    ]

    static let europe: [NormalizationCase] = [
        .init("020 7946 0958", "GB", "+442079460958"), .init("+44 (0)20 7946 0958", "GB", "+442079460958"),
        .init("+44 (0)20 7946 0958", "US", "+442079460958"), .init("07700 900123", "GB", "+447700900123"),
        .init("00 1 201 555 0123", "GB", "+12015550123"), .init("(020) 7946 0958", "GB", "+442079460958"),
        .init("44 20 7946 0958", "GB", "+442079460958"),
        .init("030 123456", "DE", "+4930123456"), .init("0049 30 123456", "DE", "+4930123456"),
        .init("+49 (0)30 123456", "DE", "+4930123456"), .init("0170 1234567", "DE", "+491701234567"),
        .init("030/123456", "DE", "+4930123456"),
        .init("01 23 45 67 89", "FR", "+33123456789"), .init("06 12 34 56 78", "FR", "+33612345678"),
        .init("+33 6 12 34 56 78", "FR", "+33612345678"), .init("0033 1 23 45 67 89", "FR", "+33123456789"),
        .init("+33 (0)1 23 45 67 89", "FR", "+33123456789"),
        .init("8 912 345-67-89", "RU", "+79123456789"), .init("8 (495) 123-45-67", "RU", "+74951234567"),
        .init("8~10 44 20 7946 0958", "RU", "+442079460958"), .init("810 44 20 7946 0958", "RU", "+442079460958"),
        .init("+7 495 123-45-67", "RU", "+74951234567"), .init("9123456789", "RU", "+79123456789"),
    ]

    /// Italy has no trunk prefix: its leading 0 belongs to the number, in every form.
    static let italy: [NormalizationCase] = [
        .init("06 1234 5678", "IT", "+390612345678"), .init("+39 06 1234 5678", "IT", "+390612345678"),
        .init("+39 06 1234 5678", "US", "+390612345678"), .init("0039 06 1234 5678", "DE", "+390612345678"),
        .init("333 123 4567", "IT", "+393331234567"), .init("0039 333 123 4567", "IT", "+393331234567"),
        .init("02 1234 5678", "IT", "+390212345678"), .init("+39 (0)6 1234 5678", "IT", "+390612345678"),
    ]

    /// Argentina's national mobile form "0 <area> 15 <number>" is "+54 9 <area> <number>" internationally.
    static let argentina: [NormalizationCase] = [
        .init("011 15-1234-5678", "AR", "+5491112345678"), .init("+54 9 11 1234-5678", "AR", "+5491112345678"),
        .init("+54 9 11 1234-5678", "US", "+5491112345678"), .init("0351 15 123 4567", "AR", "+5493511234567"),
        .init("(011) 4123-4567", "AR", "+541141234567"), .init("0800 123 4567", "AR", "+548001234567"),
        .init("15 1234 5678", "AR", "+541512345678"),
    ]

    /// Mexico: the mobile "1" after +52 and the national prefixes 01, 044, 045 were abolished in 2019;
    /// phonenumbers keeps them as digits (+5215512345678), the normaliser drops them, as the issue asks.
    static let mexico: [NormalizationCase] = [
        .init("+52 1 55 1234 5678", "MX", "+525512345678"), .init("+52 1 55 1234 5678", "US", "+525512345678"),
        .init("55 1234 5678", "MX", "+525512345678"), .init("044 55 1234 5678", "MX", "+525512345678"),
        .init("01 55 1234 5678", "MX", "+525512345678"), .init("800 123 4567", "MX", "+528001234567"),
        .init("00 1 201 555 0123", "MX", "+12015550123"),
    ]

    static let southAmericaAndAsia: [NormalizationCase] = [
        .init("(11) 91234-5678", "BR", "+5511912345678"), .init("0 21 11 91234-5678", "BR", "+5511912345678"),
        .init("011 91234 5678", "BR", "+5511912345678"), .init("0021 1 201 555 0123", "BR", "+12015550123"),
        .init("+55 11 91234-5678", "US", "+5511912345678"), .init("1234-5678", "BR", "+5512345678"),
        .init("098765 43210", "IN", "+919876543210"), .init("+91 98765 43210", "IN", "+919876543210"),
        .init("09876543210", "IN", "+919876543210"), .init("022 2345 6789", "IN", "+912223456789"),
        .init("00 44 20 7946 0958", "IN", "+442079460958"),
        .init("090-1234-5678", "JP", "+819012345678"), .init("03-1234-5678", "JP", "+81312345678"),
        .init("010 1 201 555 0123", "JP", "+12015550123"), .init("+81 90 1234 5678", "JP", "+819012345678"),
        .init("0120-123-456", "JP", "+81120123456"),
        .init("138 0013 8000", "CN", "+8613800138000"), .init("010 1234 5678", "CN", "+861012345678"),
        .init("00 1 201 555 0123", "CN", "+12015550123"), .init("+86 138 0013 8000", "CN", "+8613800138000"),
        .init("0755-1234-5678", "CN", "+8675512345678"),
    ]

    static let australia: [NormalizationCase] = [
        .init("0412 345 678", "AU", "+61412345678"), .init("(02) 9876 5432", "AU", "+61298765432"),
        .init("0011 1 201 555 0123", "AU", "+12015550123"), .init("+61 412 345 678", "AU", "+61412345678"),
        .init("0011 61 2 9876 5432", "AU", "+61298765432"),
    ]

    @Test(arguments: northAmerica + europe + italy + argentina + mexico + southAmericaAndAsia + australia)
    func normalisesToE164(_ c: NormalizationCase) {
        #expect(PhoneNumberNormalizer.normalize(c.input, defaultRegion: c.region) == c.expected)
    }

    @Test func oneNormalizerPerRegionAnswersLikeTheStaticCall() {
        let italy = PhoneNumberNormalizer(defaultRegion: "IT")
        for c in Self.italy where c.region == "IT" {
            #expect(italy.normalize(c.input) == c.expected, "\(c.input)")
        }
    }

    @Test func regionCodesAreReadInAnyCase() {
        #expect(PhoneNumberNormalizer.normalize("06 1234 5678", defaultRegion: "it") == "+390612345678")
    }

    @Test(arguments: [
        NormalizationCase("201-555-0123", "ZZ", nil), NormalizationCase("201-555-0123", "001", nil),
        NormalizationCase("201-555-0123", "", nil), NormalizationCase("+44 20 7946 0958", "ZZ", "+442079460958"),
    ])
    func anUnknownDefaultRegionStillReadsInternationalNumbers(_ c: NormalizationCase) {
        #expect(PhoneNumberNormalizer.normalize(c.input, defaultRegion: c.region) == c.expected)
    }

    @Test(arguments: [
        ("+14165550123", "CA"), ("+12015550123", "US"), ("+18765550123", "JM"), ("+441481256789", "GG"),
        ("+442079460958", "GB"), ("+79123456789", "RU"), ("+77011234567", "KZ"), ("+390612345678", "IT"),
        ("+390669812345", "VA"), ("+5491112345678", "AR"),
    ])
    func findsTheRegionOfAnE164Number(_ c: (String, String)) {
        #expect(PhoneNumberNormalizer.regionCode(ofE164: c.0) == c.1)
    }

    @Test(arguments: ["+80012345678", "+999123456", "12015550123", "+1201555012a", "+", "", "+1234567890123456"])
    func hasNoRegionForNonGeographicOrMalformedNumbers(_ number: String) {
        #expect(PhoneNumberNormalizer.regionCode(ofE164: number) == nil)
    }

    @Test func theDefaultRegionIsTheCallersOwnElseUS() {
        #expect(PhoneNumberNormalizer.defaultRegion(forCallerNumber: "+390612345678") == "IT")
        #expect(PhoneNumberNormalizer.defaultRegion(forCallerNumber: "+80012345678") == "US")
        #expect(PhoneNumberNormalizer.defaultRegion(forCallerNumber: nil) == "US")
    }
}
