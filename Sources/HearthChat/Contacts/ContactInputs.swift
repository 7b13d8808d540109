import HearthAccounts
import HearthCore
import HearthFunctions

/// The address book a `matchContacts` call sends: its phone numbers normalised to E.164 and
/// its e-mail addresses normalised (trimmed, lower-cased), each with the text as sent.
/// Unparsable entries are skipped, as the contract says; wrong types are refused naming the
/// entry.
struct ContactInputs {
    var numbers: [(sent: String, e164: String)] = []
    var emails: [(sent: String, address: String)] = []

    /// Numbers and e-mails together.
    static let maxInputs = 1_000
    /// Longer entries cannot be a phone number or an e-mail worth looking at: skipped unread.
    static let maxEntryLength = 320

    static let usage =
        #"e.g. {"phoneNumbers": ["+1 415 555 0100", "020 7946 0958"], "emails": ["a@example.com"], "defaultRegion": "GB"}"#

    /// - Parameter callerNumber: the caller's own number, whose region is the default one when
    ///   `defaultRegion` is not sent.
    init(_ data: CallData, callerNumber: () async throws(CallableError) -> String?) async throws(CallableError) {
        let phoneEntries = try Self.strings(data, "phoneNumbers")
        let emailEntries = try Self.strings(data, "emails")
        guard phoneEntries != nil || emailEntries != nil else {
            throw .invalidArgument("'phoneNumbers' is required (an array of strings), \(Self.usage).")
        }
        let count = (phoneEntries?.count ?? 0) + (emailEntries?.count ?? 0)
        guard count <= Self.maxInputs else {
            throw .invalidArgument(
                "'phoneNumbers' and 'emails' hold \(count) entries together; the limit is \(Self.maxInputs) per call."
            )
        }
        let region = try await Self.region(data, callerNumber: callerNumber)
        let normalizer = PhoneNumberNormalizer(defaultRegion: region)
        for entry in phoneEntries ?? [] where entry.utf8.count <= Self.maxEntryLength {
            if let e164 = normalizer.normalize(entry) { numbers.append((entry, e164)) }
        }
        for entry in emailEntries ?? [] where entry.utf8.count <= Self.maxEntryLength {
            if let address = EmailAddress.normalize(entry) { emails.append((entry, address)) }
        }
    }

    /// What the quota counts: each distinct number and address.
    var quotaInputs: [String] {
        numbers.map(\.e164) + emails.map { "mailto:" + $0.address }
    }

    /// The strings of the optional array `field` (absent or null: nil).
    private static func strings(_ data: CallData, _ field: String) throws(CallableError) -> [String]? {
        guard let value = data.fields[field], value != .null else { return nil }
        guard let array = value.arrayValue else {
            throw .invalidArgument("'\(field)' must be an array of strings, not \(CallData.describe(value)).")
        }
        var strings: [String] = []
        strings.reserveCapacity(array.count)
        for (index, entry) in array.enumerated() {
            guard let string = entry.stringValue else {
                throw .invalidArgument("'\(field)[\(index)]' must be a string, not \(CallData.describe(entry)).")
            }
            strings.append(string)
        }
        return strings
    }

    /// `defaultRegion` when sent (a region code of the numbering plan, any case), else the
    /// region of the caller's own number, else "US".
    private static func region(
        _ data: CallData,
        callerNumber: () async throws(CallableError) -> String?
    ) async throws(CallableError) -> String {
        guard let value = data.fields["defaultRegion"], value != .null else {
            return PhoneNumberNormalizer.defaultRegion(forCallerNumber: try await callerNumber())
        }
        guard let code = value.stringValue else {
            throw .invalidArgument(
                "'defaultRegion' must be a region code string such as \"US\", not \(CallData.describe(value))."
            )
        }
        let upper = code.uppercased()
        guard upper.utf8.count == 2, PhoneNumberingPlan.shared.region(code: upper) != nil else {
            throw .invalidArgument(
                "'defaultRegion' is '\(code.prefix(16))', which is not a region code (ISO 3166-1 alpha-2, e.g. \"US\", \"GB\")."
            )
        }
        return upper
    }
}
