/// Email addresses as accounts store them: trimmed and lowercased (Firebase canonicalises
/// emails the same way), with a plausibility check rather than full RFC 5322.
public enum EmailAddress {
    /// The canonical form of `raw`, or nil when it is not a plausible address.
    public static func normalize(_ raw: String) -> String? {
        let trimmed = String(raw.drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed())
        let email = trimmed.lowercased()
        guard email.utf8.count <= 254,
            email.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value != 0x7F && $0 != "," && $0 != ";" }),
            let at = email.lastIndex(of: "@")
        else { return nil }
        let local = email[..<at]
        let domain = email[email.index(after: at)...]
        guard !local.isEmpty, local.utf8.count <= 64, !local.contains("@"),
            !domain.isEmpty, !domain.hasPrefix("."), !domain.hasSuffix("."), !domain.contains("..")
        else { return nil }
        return email
    }
}
