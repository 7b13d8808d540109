/// Every region of the generated table, compiled once (on first use) and immutable after: looked up by
/// region code or by calling code.
final class PhoneNumberingPlan: Sendable {
    /// The table in `PhoneRegions+Table.swift`, compiled.
    static let shared = PhoneNumberingPlan(PhoneRegion.all)

    let regions: [PhoneNumberingRegion]
    /// Patterns of the table that did not compile (none, as a test checks).
    let errors: [DigitPatternError]
    private let indexByCode: [String: Int]
    /// For each calling code 0...999, its regions' indexes, the main region first.
    private let indexesByCallingCode: [[Int]]

    /// Calling codes have at most three digits.
    static let longestCallingCode = 3

    init(_ rows: [PhoneRegion]) {
        var errors: [DigitPatternError] = []
        let regions = rows.map { PhoneNumberingRegion($0, errors: &errors) }
        var indexByCode: [String: Int] = [:]
        var indexesByCallingCode = [[Int]](repeating: [], count: 1000)
        for (index, region) in regions.enumerated() where (1...999).contains(region.callingCode) {
            if region.code != Self.nonGeographic { indexByCode[region.code] = index }
            if region.row.isMainRegion {
                indexesByCallingCode[region.callingCode].insert(index, at: 0)
            } else {
                indexesByCallingCode[region.callingCode].append(index)
            }
        }
        self.regions = regions
        self.errors = errors
        self.indexByCode = indexByCode
        self.indexesByCallingCode = indexesByCallingCode
    }

    /// The code libphonenumber gives the non-geographic entities (+800, +808, +870, +878, +881-+883, +888, +979).
    static let nonGeographic = "001"

    /// The region for an ISO code, upper or lower case ("US", "it"); nil for unknown codes and "001".
    func region(code: String) -> PhoneNumberingRegion? {
        if let index = indexByCode[code] { return regions[index] }
        guard code.utf8.count == 2, let index = indexByCode[code.uppercased()] else { return nil }
        return regions[index]
    }

    /// The main region of a calling code (US for 1), or its non-geographic entity ("001" for 800).
    func mainRegion(callingCode: Int) -> PhoneNumberingRegion? {
        guard (0...999).contains(callingCode), let index = indexesByCallingCode[callingCode].first else {
            return nil
        }
        return regions[index]
    }

    /// Every region of a calling code, the main one first.
    func regions(callingCode: Int) -> [PhoneNumberingRegion] {
        guard (0...999).contains(callingCode) else { return [] }
        return indexesByCallingCode[callingCode].map { regions[$0] }
    }

    /// libphonenumber's `extractCountryCode`: the calling code `digits` start with (one to three digits, never
    /// starting with 0) and how many digits it takes; nil when they start with none.
    func callingCode(startOf digits: [UInt8]) -> (code: Int, length: Int)? {
        guard let first = digits.first, first != 0 else { return nil }
        var code = 0
        for length in 1...min(Self.longestCallingCode, digits.count) {
            code = code * 10 + Int(digits[length - 1])
            if !indexesByCallingCode[code].isEmpty { return (code, length) }
        }
        return nil
    }
}
