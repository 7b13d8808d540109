/// An object's full path in its bucket (`users/u1/avatar.jpg`), checked as Cloud Storage and
/// the contract require: 1 to 1024 bytes of UTF-8, no carriage return or line feed, no empty
/// segment (`//`, a leading or trailing `/`), no `.` or `..` segment, no NUL.
public struct ObjectName: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The most bytes of UTF-8 a name may have.
    public static let maxBytes = 1024

    public let value: String

    /// - Throws: `StorageError` `.invalidName`, naming what is wrong.
    public init(_ value: String) throws(StorageError) {
        let bytes = value.utf8
        guard !bytes.isEmpty else { throw Self.refused(value, "is empty") }
        guard bytes.count <= Self.maxBytes else {
            throw Self.refused(value, "is \(bytes.count) bytes long; at most \(Self.maxBytes) are allowed")
        }
        if bytes.contains(where: { $0 == 0x0A || $0 == 0x0D }) {
            throw Self.refused(value, "contains a line break (CR or LF)")
        }
        if bytes.contains(0) { throw Self.refused(value, "contains a NUL character") }
        for segment in value.split(separator: "/", omittingEmptySubsequences: false) {
            if segment.isEmpty {
                throw Self.refused(value, "has an empty segment ('//', or a '/' at its start or end)")
            }
            if segment == "." || segment == ".." { throw Self.refused(value, "has a '\(segment)' segment") }
        }
        self.value = value
    }

    public var description: String { value }

    public static func < (lhs: ObjectName, rhs: ObjectName) -> Bool {
        lhs.value.utf8.lexicographicallyPrecedes(rhs.value.utf8)
    }

    private static func refused(_ value: String, _ why: String) -> StorageError {
        let shown = value.utf8.count > 80 ? String(value.prefix(80)) + "…" : value
        return StorageError(.invalidName, "The object name '\(shown.debugDescription.dropFirst().dropLast())' \(why).")
    }
}

/// A bucket's name: any bucket is its own space of objects (`<project-id>.appspot.com` by
/// default). 1 to 222 bytes of lowercase letters, digits, `-`, `_` and `.`, starting and ending
/// with a letter or digit, as Cloud Storage allows (so `.` and `..` are no buckets).
public struct BucketName: Hashable, Sendable, CustomStringConvertible {
    public let value: String

    /// - Throws: `StorageError` `.invalidName`.
    public init(_ value: String) throws(StorageError) {
        let isAlphanumeric = { (byte: UInt8) in (0x61...0x7A).contains(byte) || (0x30...0x39).contains(byte) }
        let allowed = value.utf8.allSatisfy { byte in
            isAlphanumeric(byte) || byte == 0x2D || byte == 0x5F || byte == 0x2E
        }
        guard let first = value.utf8.first, let last = value.utf8.last, isAlphanumeric(first), isAlphanumeric(last),
            value.utf8.count <= 222, allowed
        else {
            throw StorageError(
                .invalidName,
                "The bucket name '\(value.prefix(80))' is not one: use 1 to 222 lowercase letters, digits, '-', '_' "
                    + "and '.', starting and ending with a letter or digit."
            )
        }
        self.value = value
    }

    public var description: String { value }
}
