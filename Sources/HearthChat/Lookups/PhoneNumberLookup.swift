import HearthCore

/// The phone-number index of `matchContacts`: each profile's E.164 `phoneNumber` → its uid
/// (`users/$uid/phoneNumber`), kept by the store in the same batch as the profile's change and
/// readable by no client (`LookupIndex`).
struct PhoneNumberLookup: LookupIndex {
    static let name = "chat.phoneNumbers"
    var name: String { Self.name }
    var pattern: String { "/users/$uid/phoneNumber" }
    var version: Int { 1 }

    /// The number, when it is E.164 (what the profile rules accept); anything else is not
    /// found by any number.
    func terms(of value: Node, wildcards: [String: String]) -> [String] {
        guard case .leaf(.string(let number), _) = value, Self.isE164(number) else { return [] }
        return [number]
    }

    /// `+`, a digit 1–9, then at most 14 more digits.
    static func isE164(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count >= 3, bytes.count <= 16, bytes[0] == UInt8(ascii: "+"), bytes[1] != UInt8(ascii: "0")
        else { return false }
        return bytes.dropFirst().allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
    }
}
