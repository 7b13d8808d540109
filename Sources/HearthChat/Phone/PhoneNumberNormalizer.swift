/// Normalises phone numbers as people type them, in any common national or international format, to E.164
/// (`+<calling code><national number>`, at most 15 digits), the way libphonenumber's `parse` does, from the
/// generated table of every region. Numbers are not checked against numbering plans: a fictional US 555 number
/// normalises like any other. See docs/design.md, "Phone numbers".
///
/// Make one per default region and reuse it for a whole address book; it is a value, free to share.
struct PhoneNumberNormalizer: Sendable {
    /// The region assumed for numbers written without `+` or an international prefix; nil for an unknown
    /// code, so that only international numbers parse.
    let defaultRegion: PhoneNumberingRegion?
    private let plan: PhoneNumberingPlan

    /// The fewest national digits accepted (libphonenumber accepts 2).
    static let minimumNationalDigits = 4
    /// E.164's limit on calling code and national number together (libphonenumber accepts up to 20).
    static let maximumDigits = 15
    /// The region used when the caller's own number tells none.
    static let fallbackRegion = "US"

    /// - Parameter defaultRegion: an ISO 3166 region code ("US", "it"), as the contract's `defaultRegion`.
    init(defaultRegion: String, plan: PhoneNumberingPlan = .shared) {
        self.plan = plan
        self.defaultRegion = plan.region(code: defaultRegion)
    }

    /// The E.164 form of `input` (`"+390612345678"`), or nil when it is not a phone number.
    static func normalize(_ input: String, defaultRegion: String) -> String? {
        PhoneNumberNormalizer(defaultRegion: defaultRegion).normalize(input)
    }

    /// The region of an E.164 number (`"+14165550123"` → "CA"): among the regions of its calling code, one whose
    /// leading digits or number types it matches, else the code's main region; nil for a non-geographic
    /// number (+800) or anything that is not `+` and digits.
    static func regionCode(ofE164 number: String, plan: PhoneNumberingPlan = .shared) -> String? {
        let utf8 = Array(number.utf8)
        guard utf8.count >= 3, utf8.count <= maximumDigits + 1, utf8[0] == UInt8(ascii: "+") else { return nil }
        var digits: [UInt8] = []
        for byte in utf8.dropFirst() {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
            digits.append(byte - UInt8(ascii: "0"))
        }
        guard let (callingCode, length) = plan.callingCode(startOf: digits) else { return nil }
        let national = Array(digits[length...])
        let regions = plan.regions(callingCode: callingCode)
        guard let main = regions.first, main.code != PhoneNumberingPlan.nonGeographic else { return nil }
        for region in regions.dropFirst() {
            if let leading = region.leadingDigits {
                if leading.prefixMatch(national) != nil { return region.code }
            } else if region.numberTypes?.fullMatch(national) == true {
                return region.code
            }
        }
        return main.code
    }

    /// The contract's default region for a caller: the region of their own number, else "US".
    static func defaultRegion(forCallerNumber number: String?) -> String {
        number.flatMap { regionCode(ofE164: $0) } ?? fallbackRegion
    }

    /// The E.164 form of `input`, or nil when it is not a phone number.
    func normalize(_ input: String) -> String? {
        guard let typed = PhoneNumberInput(input) else { return nil }
        return normalize(typed)
    }

    func normalize(_ typed: PhoneNumberInput) -> String? {
        guard let found = findCallingCode(typed) else { return nil }
        var national = found.national
        // As libphonenumber: a number with a calling code is read with that code's main region.
        let region: PhoneNumberingRegion
        if let code = found.callingCode {
            guard let main = plan.mainRegion(callingCode: code) else { return nil }
            region = main
        } else {
            guard let defaultRegion else { return nil }
            region = defaultRegion
        }
        let stripped = Self.strippingNationalPrefix(national, in: region)
        switch region.lengthVerdict(stripped.count) {
        case .tooShort, .possibleLocalOnly, .invalidLength: break
        case .possible, .tooLong: national = stripped
        }
        let codeDigits = region.callingCodeDigits
        guard national.count >= Self.minimumNationalDigits, codeDigits.count + national.count <= Self.maximumDigits
        else { return nil }
        let length = 1 + codeDigits.count + national.count
        return String(unsafeUninitializedCapacity: length) { bytes in
            bytes[0] = UInt8(ascii: "+")
            var index = 1
            for digit in codeDigits + national {
                bytes[index] = digit + UInt8(ascii: "0")
                index += 1
            }
            return length
        }
    }

    /// libphonenumber's `maybeExtractCountryCode`: the calling code written in the number (after `+`, after the
    /// default region's international prefix, or the default region's own code written without `+`) and the
    /// national number after it; a nil calling code when none is written (then `national` is every digit).
    /// Nil when the number cannot be read.
    private func findCallingCode(_ typed: PhoneNumberInput) -> (callingCode: Int?, national: [UInt8])? {
        let digits = typed.digits
        if typed.hasPlus {
            guard digits.count > 2 else { return nil }
            if let (code, length) = plan.callingCode(startOf: digits) { return (code, Array(digits[length...])) }
            // libphonenumber then reads the digits again as if the + were not there.
            guard let again = findCallingCodeWithoutPlus(digits), again.callingCode != nil else { return nil }
            return again
        }
        return findCallingCodeWithoutPlus(digits)
    }

    private func findCallingCodeWithoutPlus(_ digits: [UInt8]) -> (callingCode: Int?, national: [UInt8])? {
        guard let region = defaultRegion else { return (nil, digits) }
        if let end = region.internationalPrefix?.prefixMatch(digits)?.end, end >= digits.count || digits[end] != 0 {
            // Dialled with the international prefix: a calling code must follow (they never start with 0).
            let rest = Array(digits[end...])
            guard rest.count > 2, let (code, length) = plan.callingCode(startOf: rest) else { return nil }
            return (code, Array(rest[length...]))
        }
        let codeDigits = region.callingCodeDigits
        if digits.starts(with: codeDigits) {
            // The region's own calling code written without +: taken as one when the number only makes sense so.
            let national = Self.strippingNationalPrefix(Array(digits[codeDigits.count...]), in: region)
            if (!region.isViable(digits) && region.isViable(national)) || region.lengthVerdict(digits.count) == .tooLong
            {
                return (region.callingCode, national)
            }
        }
        return (nil, digits)
    }

    /// libphonenumber's `maybeStripNationalPrefixAndCarrierCode`: `national` without the region's trunk prefix
    /// (and carrier code), or transformed by its rule (Argentina's 15 → 9); unchanged when there is none, or when
    /// the number was a viable national number and would not be one after.
    static func strippingNationalPrefix(_ national: [UInt8], in region: PhoneNumberingRegion) -> [UInt8] {
        guard !national.isEmpty, let pattern = region.nationalPrefixForParsing,
            let match = pattern.prefixMatch(national)
        else { return national }
        let wasViable = region.isViable(national)
        let candidate: [UInt8]
        // As libphonenumber: the rule applies when the pattern's last group took part in the match.
        if let transform = region.nationalPrefixTransform, (match.groups.last ?? nil) != nil {
            var transformed: [UInt8] = []
            for part in transform {
                switch part {
                case .digit(let digit): transformed.append(digit)
                case .group(let group):
                    if group >= 1, group <= match.groups.count, let range = match.groups[group - 1] {
                        transformed += national[range]
                    }
                }
            }
            candidate = transformed + national[match.end...]
        } else {
            candidate = Array(national[match.end...])
        }
        if wasViable && !region.isViable(candidate) { return national }
        return candidate
    }
}
