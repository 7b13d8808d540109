/// What the normaliser reads from a number as people type it: whether it starts with `+`, and its digits.
///
/// Accepted: digits (ASCII, full-width, Arabic-Indic), the separators of libphonenumber (spaces, dots, dashes,
/// slashes, brackets, tildes and their full-width forms), one leading `+`, a trailing extension (` ext. 12`,
/// `x12`, `#12`, `;ext=12`, `, 12`), and a `tel:` URI (RFC 3966: `;ext=`, `;phone-context=+…`, other parameters
/// ignored). Refused: anything else (letters, text around the number), and input over 64 characters, before any
/// further work.
struct PhoneNumberInput: Equatable, Sendable {
    let hasPlus: Bool
    let digits: [UInt8]

    /// Inputs longer than this are refused unread.
    static let maximumCharacters = 64
    /// More digits than this (before an extension) cannot be a phone number.
    static let maximumDigits = 20
    static let maximumExtensionDigits = 20

    init(hasPlus: Bool, digits: [UInt8]) {
        self.hasPlus = hasPlus
        self.digits = digits
    }

    init?(_ text: String) {
        guard text.utf8.count <= 4 * Self.maximumCharacters else { return nil }
        let scalars = Array(text.unicodeScalars)
        guard scalars.count <= Self.maximumCharacters else { return nil }
        var start = 0
        while start < scalars.count, Self.isSpace(scalars[start]) { start += 1 }
        var end = scalars.count
        var context: PhoneNumberInput? = nil
        if Self.hasPrefix(scalars[start...], "tel:") {
            start += 4
            if let semicolon = scalars[start...].firstIndex(of: ";") {
                guard let parameters = Self.uriContext(scalars[(semicolon + 1)...]) else { return nil }
                context = parameters
                end = semicolon
            }
        }
        guard let number = Self.scan(scalars[start..<end]) else { return nil }
        if let context, !context.digits.isEmpty {
            guard !number.hasPlus, context.digits.count + number.digits.count <= Self.maximumDigits else { return nil }
            self.init(hasPlus: context.hasPlus, digits: context.digits + number.digits)
        } else {
            self = number
        }
    }

    /// The number itself: digits and separators, a leading `+`, then perhaps an extension.
    private static func scan(_ scalars: ArraySlice<Unicode.Scalar>) -> PhoneNumberInput? {
        var digits: [UInt8] = []
        digits.reserveCapacity(16)
        var hasPlus = false
        var index = scalars.startIndex
        while index < scalars.endIndex {
            let scalar = scalars[index]
            if let digit = digitValue(scalar) {
                guard digits.count < maximumDigits else { return nil }
                digits.append(digit)
            } else if scalar.value == 0x2B || scalar.value == 0xFF0B {
                guard digits.isEmpty, !hasPlus else { return nil }
                hasPlus = true
            } else if !isSeparator(scalar) {
                guard !digits.isEmpty, isExtension(scalars[index...]) else { return nil }
                break
            }
            index += 1
        }
        guard !digits.isEmpty else { return nil }
        return PhoneNumberInput(hasPlus: hasPlus, digits: digits)
    }

    /// A `tel:` URI's parameters; the digits of a global `phone-context` (`+1-914-555`), which come before the
    /// number. Nil when a parameter is malformed.
    private static func uriContext(_ parameters: ArraySlice<Unicode.Scalar>) -> PhoneNumberInput? {
        var context = PhoneNumberInput(hasPlus: false, digits: [])
        for parameter in parameters.split(separator: ";", omittingEmptySubsequences: false) {
            guard let equals = parameter.firstIndex(of: "=") else { return nil }
            let value = parameter[(equals + 1)...]
            if hasPrefix(parameter, "phone-context=") {
                guard value.first == "+" else { continue }
                guard let global = scan(value), global.hasPlus, value.allSatisfy({ $0 != "x" && $0 != "#" }) else {
                    return nil
                }
                context = global
            } else if hasPrefix(parameter, "ext=") {
                guard (1...maximumExtensionDigits).contains(value.count), value.allSatisfy({ digitValue($0) != nil })
                else { return nil }
            }
        }
        return context
    }

    /// The markers an extension starts with, longest first.
    private static let extensionMarkers = ["extension", "extn", "ext", ";ext=", ",,", "x", "#", ",", ";"]

    /// Whether `rest` is an extension: a marker, perhaps `.` or `:`, spaces or dashes, 1-20 digits, perhaps `#`.
    private static func isExtension(_ rest: ArraySlice<Unicode.Scalar>) -> Bool {
        guard let marker = extensionMarkers.first(where: { hasPrefix(rest, $0) }) else { return false }
        var index = rest.startIndex + marker.unicodeScalars.count
        if index < rest.endIndex, rest[index] == "." || rest[index] == ":" { index += 1 }
        while index < rest.endIndex, isSpace(rest[index]) || rest[index] == "-" { index += 1 }
        var count = 0
        while index < rest.endIndex, digitValue(rest[index]) != nil {
            count += 1
            index += 1
        }
        guard (1...maximumExtensionDigits).contains(count) else { return false }
        if index < rest.endIndex, rest[index] == "#" { index += 1 }
        while index < rest.endIndex, isSpace(rest[index]) { index += 1 }
        return index == rest.endIndex
    }

    /// Whether `scalars` start with `prefix` (ASCII, any case).
    private static func hasPrefix(_ scalars: ArraySlice<Unicode.Scalar>, _ prefix: String) -> Bool {
        var index = scalars.startIndex
        for expected in prefix.unicodeScalars {
            guard index < scalars.endIndex else { return false }
            let scalar = scalars[index]
            let lowered = ("A"..."Z").contains(scalar) ? Unicode.Scalar(scalar.value + 32)! : scalar
            guard lowered == expected else { return false }
            index += 1
        }
        return true
    }

    /// 0-9 in ASCII, full-width, Arabic-Indic and Eastern Arabic-Indic forms.
    static func digitValue(_ scalar: Unicode.Scalar) -> UInt8? {
        let value = scalar.value
        if value &- 0x30 < 10 { return UInt8(truncatingIfNeeded: value &- 0x30) }
        let zero: UInt32
        switch value {
        case 0x30...0x39: zero = 0x30
        case 0xFF10...0xFF19: zero = 0xFF10
        case 0x660...0x669: zero = 0x660
        case 0x6F0...0x6F9: zero = 0x6F0
        default: return nil
        }
        return UInt8(value - zero)
    }

    static func isSpace(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x20, 0x09, 0xA0, 0x2000...0x200B, 0x202F, 0x205F, 0x2060, 0x3000, 0xFEFF: true
        default: false
        }
    }

    /// libphonenumber's punctuation, without its `x`: spaces, dashes, dots, slashes, brackets, tildes.
    static func isSeparator(_ scalar: Unicode.Scalar) -> Bool {
        let value = scalar.value
        if value == 0x20 || value == 0x2D || value == 0x2E || value == 0x28 || value == 0x29 { return true }
        if isSpace(scalar) { return true }
        return switch scalar.value {
        case 0x2D, 0x2E, 0x2F, 0x28, 0x29, 0x5B, 0x5D, 0x7E, 0xAD, 0x2010...0x2015, 0x2212, 0x2053, 0x223C, 0x30FC,
            0xFF08, 0xFF09, 0xFF0D...0xFF0F, 0xFF3B, 0xFF3D, 0xFF5E:
            true
        default: false
        }
    }
}
