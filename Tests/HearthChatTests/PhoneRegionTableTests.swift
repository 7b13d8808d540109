import Testing

@testable import HearthChat

/// The generated table (PhoneRegions+Table.swift) as the normaliser sees it.
struct PhoneRegionTableTests {
    let plan = PhoneNumberingPlan.shared

    @Test func everyPatternOfTheTableCompiles() {
        #expect(plan.errors.map(\.description) == [])
        #expect(plan.regions.count == PhoneRegion.all.count)
    }

    @Test func holdsEveryRegionAndTheNonGeographicCodes() {
        let geographic = PhoneRegion.all.filter { $0.code != PhoneNumberingPlan.nonGeographic }
        #expect(geographic.count == 245)
        #expect(Set(geographic.map(\.code)).count == geographic.count)
        let nonGeographic = PhoneRegion.all.filter { $0.code == PhoneNumberingPlan.nonGeographic }.map(\.callingCode)
        #expect(nonGeographic == [800, 808, 870, 878, 881, 882, 883, 888, 979])
    }

    @Test func everyCallingCodeHasExactlyOneMainRegion() {
        let byCode = Dictionary(grouping: PhoneRegion.all, by: \.callingCode)
        for (code, regions) in byCode {
            #expect(regions.filter(\.isMainRegion).count == 1, "+\(code)")
            #expect(plan.mainRegion(callingCode: code)?.row.isMainRegion == true)
        }
        #expect(plan.mainRegion(callingCode: 1)?.code == "US")
        #expect(plan.mainRegion(callingCode: 7)?.code == "RU")
        #expect(plan.mainRegion(callingCode: 44)?.code == "GB")
        #expect(plan.mainRegion(callingCode: 39)?.code == "IT")
        #expect(plan.regions(callingCode: 1).count == 25)
    }

    @Test(
        arguments: [
            ("US", 1, "011", "1"), ("CA", 1, "011", "1"), ("GB", 44, "00", "0"), ("DE", 49, "00", "0"),
            ("FR", 33, "00", "0"), ("RU", 7, "810", "8"), ("JP", 81, "010", "0"), ("AU", 61, nil, "0"),
            ("IT", 39, "00", nil), ("MX", 52, "0[09]", nil), ("AR", 54, "00", "0"), ("IN", 91, "00", "0"),
        ] as [(String, Int, String?, String?)]
    )
    func carriesTheDiallingPrefixes(_ c: (String, Int, String?, String?)) throws {
        let region = try #require(plan.region(code: c.0)).row
        #expect(region.callingCode == c.1)
        if let prefix = c.2 { #expect(region.internationalPrefix == prefix) }
        #expect(region.nationalPrefix == c.3)
    }

    @Test func carriesTheQuirks() throws {
        let russia = try #require(plan.region(code: "RU")).row
        #expect(russia.preferredInternationalPrefix == "8~10")
        let argentina = try #require(plan.region(code: "AR")).row
        #expect(argentina.nationalPrefixTransformRule == "9$1")
        #expect(argentina.nationalPrefixForParsing?.hasSuffix("15)?") == true)
        let mexico = try #require(plan.region(code: "MX")).row
        #expect(mexico.nationalPrefixForParsing == "0(?:[12]|4[45])|1")
        #expect(try #require(plan.region(code: "IT")).row.mayStartWithZero)
        #expect(try #require(plan.region(code: "CI")).row.mayStartWithZero)
        #expect(try #require(plan.region(code: "GB")).row.mayStartWithZero == false)
        #expect(try #require(plan.region(code: "JM")).row.leadingDigits == "658|876")
    }

    @Test func findsCallingCodesOfOneToThreeDigits() {
        func code(_ text: String) -> Int? { plan.callingCode(startOf: DigitPatternTests.digits(text))?.code }
        #expect(code("12015550123") == 1)
        #expect(code("442079460958") == 44)
        #expect(code("3531234567") == 353)
        #expect(code("0441234") == nil)
        #expect(code("999123") == nil)
        #expect(code("") == nil)
    }
}
