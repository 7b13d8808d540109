import HearthFuzzSupport

@testable import HearthChat

/// The phone-number normaliser (numbers as people type them, to E.164). The first byte picks the default
/// region. What it accepts is `+` and at most 15 digits; a number written with `+` and a calling code
/// never normalises to two different numbers in two regions (it may fail in some: `+0111 ...` is read
/// again without the `+`, with the region's international prefix, as libphonenumber does). (Normalising a result again may strip a national prefix the first pass kept, as
/// libphonenumber does: `0012345678` in AU is `+61012345678`, which is `+6112345678`.)
enum PhoneFuzz {
    static let regions = ["US", "GB", "IT", "DE", "FR", "AR", "IN", "BR", "JP", "MX", "AU", "CA", "RU", "CN", "ZZ", ""]

    static let target = FuzzTarget(
        name: "phone",
        prepare: { _ = PhoneNumberNormalizer.normalize("+14155550100", defaultRegion: "US") }
    ) { input in
        guard let first = input.first else { return }
        let region = regions[Int(first) % regions.count]
        let text = UnsafeRawBufferPointer(rebasing: input.dropFirst()).text
        _ = PhoneNumberNormalizer.regionCode(ofE164: text)
        guard let number = PhoneNumberNormalizer.normalize(text, defaultRegion: region) else { return }
        let digits = number.utf8.dropFirst()
        require(number.utf8.first == UInt8(ascii: "+"), "'\(text)' normalised to '\(number)', without '+'")
        require(digits.allSatisfy { (0x30...0x39).contains($0) }, "'\(text)' normalised to '\(number)'")
        require(digits.count <= PhoneNumberNormalizer.maximumDigits, "'\(text)' normalised to '\(number)'")
        let utf8 = Array(text.utf8.prefix(2))
        if utf8.count == 2, utf8[0] == UInt8(ascii: "+"), (0x31...0x39).contains(utf8[1]) {
            for other in ["US", "IT", "ZZ"] {
                guard let elsewhere = PhoneNumberNormalizer.normalize(text, defaultRegion: other) else { continue }
                require(elsewhere == number, "'\(text)' is '\(number)' in \(region), '\(elsewhere)' in \(other)")
            }
        }
    }
}
