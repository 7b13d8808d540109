/// The raw query string of a request as decoded name/value pairs, decoded as HTML forms encode
/// them: `+` is a space and `%2B` a plus (so a JSON value such as `1e+5` must be sent as
/// `1e%2B5`, as every form encoder sends it). The one parse of every way in: REST, SSE, the
/// WebSocket upgrade and the accounts endpoints.
struct QueryString: Sendable {
    private(set) var pairs: [(name: String, value: String)] = []

    init(_ raw: Substring?) throws(RESTError) {
        guard let raw, !raw.isEmpty else { return }
        // Split on the bytes `&` and `=` (ASCII: never inside a multi-byte character).
        for bytes in raw.utf8.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            let part = Substring(bytes)
            let name: Substring
            let value: Substring
            if let equals = part.utf8.firstIndex(of: UInt8(ascii: "=")) {
                name = part[..<equals]
                value = part[part.utf8.index(after: equals)...]
            } else {
                name = part
                value = ""
            }
            guard let decodedName = PercentDecoding.decodeFormComponent(name) else {
                throw .badRequest("Invalid query parameter name '\(name)': not valid percent-encoded UTF-8.")
            }
            guard let decodedValue = PercentDecoding.decodeFormComponent(value) else {
                throw .badRequest("Invalid value of query parameter '\(decodedName)': not valid percent-encoded UTF-8.")
            }
            pairs.append((decodedName, decodedValue))
        }
    }

    /// The first value of `name`.
    subscript(name: String) -> String? {
        pairs.first { $0.name == name }?.value
    }

    func contains(_ name: String) -> Bool { pairs.contains { $0.name == name } }

    /// The query string with the `auth` value replaced, for logs.
    var redacted: String {
        pairs.map { pair in
            pair.name == "auth" ? "auth=<redacted>" : "\(pair.name)=\(pair.value)"
        }.joined(separator: "&")
    }
}
