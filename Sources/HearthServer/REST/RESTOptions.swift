import HearthCore

/// The query parameters of a REST request, validated as Firebase validates them.
struct RESTOptions: Sendable {
    enum PrintMode: Sendable, Equatable { case compact, pretty, silent }

    /// `shallow=true`, paged by key as firebase-tools pages it (`limitToFirst`, `startAfter`);
    /// an admin's shallow stream also ends its range with `endAt` (`ShallowStreamRange`).
    struct Shallow: Sendable, Equatable {
        var startAfter: ChildKey?
        var limit: Int?
        var endAt: ChildKey?
    }

    var namespace = "default"
    var auth: String?
    var shallow: Shallow?
    var print: PrintMode = .compact
    var format: RenderFormat = .plain
    var query: Query?
    var timeout: Duration?
    var writeSizeLimit: WriteSizeLimit?
    var methodOverride: String?
    /// `auth_variable_override`: the `auth` the admin acts as (`.null` = anonymous).
    var authVariableOverride: JSONValue?
    /// `callback=NAME` (reads only): the JSON answered as JSONP, `NAME(...);`.
    var callback: String?
    /// `download=FILE` (reads only): the JSON answered as an attachment named FILE (empty: named
    /// after the location).
    var download: String?

    static let queryParameterNames = [
        "startAt", "endAt", "equalTo", "startAfter", "endBefore", "limitToFirst", "limitToLast",
    ]

    /// The options of `q`; with `shallowStream`, `shallow=true` may also carry `endAt` (the form
    /// of an admin's shallow stream; REST reads refuse it, as Firebase does).
    static func parse(_ q: QueryString, shallowStream: Bool = false) throws -> RESTOptions {
        var options = RESTOptions()
        if let ns = q["ns"] {
            guard Self.isValidNamespace(ns) else {
                throw RESTError.badRequest(
                    "Invalid namespace '\(ns)': use 1 to 63 letters, digits or '-'."
                )
            }
            options.namespace = ns
        }
        options.auth = q["auth"]
        options.methodOverride = q["x-http-method-override"]
        if let override = q["auth_variable_override"] {
            let parsed = try? JSONParser.parse(override)
            switch parsed {
            case .null?, .object?: options.authVariableOverride = parsed
            default:
                throw RESTError.badRequest(
                    "Invalid auth_variable_override '\(override.prefix(64))': use a JSON object (the auth variable) or null."
                )
            }
        }

        if let print = q["print"] {
            switch print {
            case "pretty": options.print = .pretty
            case "silent": options.print = .silent
            default: throw RESTError.badRequest("Invalid print '\(print)': use 'pretty' or 'silent'.")
            }
        }
        if let format = q["format"] {
            guard format == "export" else {
                throw RESTError.badRequest("Invalid format '\(format)': the only format is 'export'.")
            }
            options.format = .export
        }
        if let timeout = q["timeout"] {
            options.timeout = try Self.parseTimeout(timeout)
        }
        if let limit = q["writeSizeLimit"] {
            guard let parsed = WriteSizeLimit(rawValue: limit) else {
                throw RESTError.badRequest(
                    "Invalid writeSizeLimit '\(limit)': use tiny, small, medium, large or unlimited."
                )
            }
            options.writeSizeLimit = parsed
        }

        if let callback = q["callback"] {
            guard Self.isValidCallback(callback) else {
                throw RESTError.badRequest(
                    "Invalid callback '\(callback.prefix(64))': use a JavaScript function name such as 'gotData' or 'app.gotData'."
                )
            }
            options.callback = callback
        }
        options.download = q["download"]

        if let shallow = q["shallow"] {
            switch shallow {
            case "true": options.shallow = try Self.parseShallow(q, allowingEnd: shallowStream)
            case "false": break
            default: throw RESTError.badRequest("Invalid shallow '\(shallow)': use true or false.")
            }
        }
        if options.shallow == nil {
            options.query = try QueryParameters.parse(q)
        }
        return options
    }

    /// Namespace names: letters, digits and `-`, 1 to 63 characters.
    static func isValidNamespace(_ name: String) -> Bool {
        let utf8 = name.utf8
        guard (1...63).contains(utf8.count) else { return false }
        return utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == 0x2D
        }
    }

    /// JSONP callback names: dotted JavaScript identifiers of ASCII letters, digits, `_` and
    /// `$`, at most 128 bytes (nothing a page could be made to run but a call of that name).
    static func isValidCallback(_ name: String) -> Bool {
        let utf8 = Array(name.utf8)
        guard (1...128).contains(utf8.count) else { return false }
        var atSegmentStart = true
        for byte in utf8 {
            let isLetter =
                (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || byte == 0x5F || byte == 0x24
            let isDigit = byte >= 0x30 && byte <= 0x39
            if byte == UInt8(ascii: ".") {
                guard !atSegmentStart else { return false }
                atSegmentStart = true
            } else if isLetter || (isDigit && !atSegmentStart) {
                atSegmentStart = false
            } else {
                return false
            }
        }
        return !atSegmentStart
    }

    /// `timeout`: a positive integer with unit `ms`, `s` or `min`, at most 15 minutes.
    static func parseTimeout(_ text: String) throws -> Duration {
        let digits = text.prefix { $0.isASCII && $0.isNumber }
        let unit = text.dropFirst(digits.count)
        guard !digits.isEmpty, digits.count <= 9, let value = Int64(digits), value > 0 else {
            throw RESTError.badRequest("Invalid timeout '\(text)': use a positive number with ms, s or min, e.g. '3s'.")
        }
        let milliseconds: Int64
        switch unit {
        case "ms": milliseconds = value
        case "s": milliseconds = value * 1000
        case "min": milliseconds = value * 60_000
        default:
            throw RESTError.badRequest("Invalid timeout '\(text)': use a positive number with ms, s or min, e.g. '3s'.")
        }
        guard milliseconds <= 15 * 60_000 else {
            throw RESTError.badRequest("Invalid timeout '\(text)': the maximum is 15min.")
        }
        return .milliseconds(milliseconds)
    }

    /// `shallow=true` pages by key as firebase-tools does (`limitToFirst=N&startAfter=KEY`, the
    /// key bare as it sends it, or JSON-quoted); with `orderBy` or any other querying parameter
    /// it is refused, as Firebase refuses it.
    static func parseShallow(_ q: QueryString, allowingEnd: Bool = false) throws -> Shallow {
        let paging: Set = allowingEnd ? ["limitToFirst", "startAfter", "endAt"] : ["limitToFirst", "startAfter"]
        if q.contains("orderBy") || queryParameterNames.contains(where: { !paging.contains($0) && q.contains($0) }) {
            throw RESTError.badRequest("Mixing 'shallow' and querying parameters is not supported")
        }
        var shallow = Shallow()
        if let limit = q["limitToFirst"] { shallow.limit = try QueryParameters.parseLimit(limit, name: "limitToFirst") }
        if let startAfter = q["startAfter"] { shallow.startAfter = try shallowBoundKey(startAfter, name: "startAfter") }
        if allowingEnd, let endAt = q["endAt"] { shallow.endAt = try shallowBoundKey(endAt, name: "endAt") }
        return shallow
    }

    /// The key a shallow page starts after (or, `name` `endAt`, ends at): the text itself
    /// (firebase-tools sends the last key of the previous page unquoted), or the string of a
    /// JSON-quoted key.
    static func shallowBoundKey(_ text: String, name: String = "startAfter") throws -> ChildKey {
        var key = text
        if text.hasPrefix("\""), case .string(let quoted)? = JSONScalar.parse(text) { key = quoted }
        guard !key.isEmpty else {
            let use = name == "startAfter" ? "the key to page after" : "the last key of the range"
            throw RESTError.badRequest("Invalid \(name) '\(text)': with shallow=true, use \(use).")
        }
        return ChildKey(key)
    }
}

/// `writeSizeLimit`: Firebase's targets of how long a write may take, here as body sizes.
enum WriteSizeLimit: String, Sendable {
    case tiny, small, medium, large, unlimited

    /// Largest body in bytes a write may carry under this limit (nil: no limit beyond the
    /// server's `maxRequestBodyBytes`).
    var maxBytes: Int? {
        switch self {
        case .tiny: return 64 << 10
        case .small: return 1 << 20
        case .medium: return 10 << 20
        case .large: return 32 << 20
        case .unlimited: return nil
        }
    }

    /// Firebase's message for a write over the limit.
    static let exceededMessage = "Data to write exceeds the maximum size that can be modified with a single request."
}
