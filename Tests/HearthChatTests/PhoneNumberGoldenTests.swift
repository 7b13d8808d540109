import Foundation
import Testing

@testable import HearthChat

/// Every row of phone-golden.json (scripts/generate-phone-regions.py --golden): what phonenumbers' own
/// `parse` + `format_number(E164)` makes of each input, or where a row says so (`ours`, `why`), the
/// normaliser's deliberate difference.
struct PhoneNumberGoldenTests {
    struct Row: Decodable, Sendable, CustomTestStringConvertible {
        let input: String
        let region: String
        let phonenumbers: String?
        let ours: String?
        let why: String?

        var expected: String? { why == nil ? phonenumbers : ours }
        var testDescription: String { "'\(input)' in \(region)" }
    }

    struct Golden: Decodable {
        let phonenumbers: String
        let cases: [Row]
    }

    static let golden: Golden = {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
            "phone-golden.json"
        )
        do {
            return try JSONDecoder().decode(Golden.self, from: Data(contentsOf: file))
        } catch {
            fatalError("Cannot read \(file.path): \(error)")
        }
    }()

    @Test(arguments: golden.cases)
    func answersLikePhonenumbers(_ row: Row) {
        #expect(PhoneNumberNormalizer.normalize(row.input, defaultRegion: row.region) == row.expected)
    }

    @Test func coversManyRegionsAndFewDifferences() {
        let cases = Self.golden.cases
        #expect(cases.count >= 500)
        #expect(Set(cases.map(\.region)).count >= 60)
        let differences = cases.filter { $0.why != nil }
        #expect(differences.count <= 12)
        #expect(Self.golden.phonenumbers == "9.0.43")
    }
}
