/// The raw query string of a request as decoded name/value pairs. Only `%XX` escapes are
/// decoded (`+` stays `+`, so JSON values such as `1e+5` survive).
struct QueryString: Sendable {
    private(set) var pairs: [(name: String, value: String)] = []

    init(_ raw: Substring?) throws(RESTError) {
        guard let raw, !raw.isEmpty else { return }
        for part in raw.split(separator: "&", omittingEmptySubsequences: true) {
            let name: Substring
            let value: Substring
            if let equals = part.firstIndex(of: "=") {
                name = part[..<equals]
                value = part[part.index(after: equals)...]
            } else {
                name = part
                value = ""
            }
            guard let decodedName = PercentDecoding.decode(name) else {
                throw .badRequest("Invalid query parameter name '\(name)': not valid percent-encoded UTF-8.")
            }
            guard let decodedValue = PercentDecoding.decode(value) else {
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
