/// One region of libphonenumber's metadata, as the generated table (`PhoneRegion.all`) spells it: what parsing a
/// number dialled there needs. Patterns are libphonenumber's, read by `DigitPattern`.
struct PhoneRegion: Sendable {
    /// ISO 3166 code ("US", "IT"), or "001" for a non-geographic calling code (+800, +882, ...).
    let code: String
    let callingCode: Int
    /// The international (IDD) prefix dialled there, as a pattern: "00", "011", "0(?:0|11)", "810".
    let internationalPrefix: String?
    /// The prefix people write when the pattern has several ("8~10": dial 8, wait for the tone, dial 10).
    let preferredInternationalPrefix: String?
    /// The trunk prefix dialled before a national number ("0", "1", "8"); Italy has none, so keeps its 0.
    let nationalPrefix: String?
    /// The prefix (and carrier code) parsing strips, as a pattern; with `nationalPrefixTransformRule`, what
    /// replaces it ("$1" is the first group): Argentina's "0 11 15 …" becomes "9 11 …".
    let nationalPrefixForParsing: String?
    let nationalPrefixTransformRule: String?
    /// For a region sharing its calling code: the start of its national numbers ("658|876" for Jamaica).
    let leadingDigits: String?
    /// Every national significant number of the region matches this (libphonenumber's general description).
    let nationalNumberPattern: String
    let possibleLengths: [Int]
    /// Lengths that are only possible when dialled locally (without an area code).
    let localOnlyLengths: [Int]
    /// For a region sharing its calling code without `leadingDigits`: the union of its number types' patterns,
    /// which tells its numbers from the main region's.
    let numberTypesPattern: String?
    /// Whether its national numbers may begin with 0 (Italy's do), which E.164 keeps.
    let mayStartWithZero: Bool
    /// Whether it is the main region of its calling code (US for +1, GB for +44, RU for +7).
    let isMainRegion: Bool

    init(
        _ code: String,
        callingCode: Int,
        internationalPrefix: String? = nil,
        preferredInternationalPrefix: String? = nil,
        nationalPrefix: String? = nil,
        nationalPrefixForParsing: String? = nil,
        nationalPrefixTransformRule: String? = nil,
        leadingDigits: String? = nil,
        nationalNumberPattern: String,
        possibleLengths: [Int],
        localOnlyLengths: [Int] = [],
        numberTypesPattern: String? = nil,
        mayStartWithZero: Bool = false,
        isMainRegion: Bool = true
    ) {
        self.code = code
        self.callingCode = callingCode
        self.internationalPrefix = internationalPrefix
        self.preferredInternationalPrefix = preferredInternationalPrefix
        self.nationalPrefix = nationalPrefix
        self.nationalPrefixForParsing = nationalPrefixForParsing
        self.nationalPrefixTransformRule = nationalPrefixTransformRule
        self.leadingDigits = leadingDigits
        self.nationalNumberPattern = nationalNumberPattern
        self.possibleLengths = possibleLengths
        self.localOnlyLengths = localOnlyLengths
        self.numberTypesPattern = numberTypesPattern
        self.mayStartWithZero = mayStartWithZero
        self.isMainRegion = isMainRegion
    }
}
