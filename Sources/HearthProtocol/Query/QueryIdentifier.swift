public import HearthCore

/// A canonical name for a query, usable as a dictionary key: two listens on the same path with
/// equivalent parameters have the same identifier. It is the SDK's `_queryIdentifier` (the
/// query object with sorted keys, `ObjectToUniqueKey`), and `default` for every query that
/// loads all data, as the SDKs listen to those with the default query.
public struct QueryIdentifier: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// `default`, or the query object as JSON with its keys sorted.
    public let rawValue: String

    /// The identifier of the default query.
    public static let `default` = QueryIdentifier(rawValue: "default")

    init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// The identifier of `query`.
    public init(_ query: Query) {
        if QueryObject.loadsAllData(query) {
            self = .default
            return
        }
        let object = QueryObject.object(for: query)
        var out: [UInt8] = []
        QueryIdentifier.appendUniqueKey(object, into: &out)
        self.rawValue = String(decoding: out, as: UTF8.self)
    }

    /// The identifier of an admin's shallow listen over the range `query` describes (its
    /// children's keys and leaf values, `NamespaceEngine.listenShallow`): never equal to a
    /// query's, so a shallow listen and a query listen never share a group.
    public static func shallow(_ query: Query) -> QueryIdentifier {
        QueryIdentifier(rawValue: "shallow:" + QueryIdentifier(query).rawValue)
    }

    /// `ObjectToUniqueKey`: JSON with object keys sorted (by UTF-16 code units, as JavaScript's
    /// `sort`), recursively.
    static func appendUniqueKey(_ value: JSONValue, into out: inout [UInt8]) {
        guard case .object(let members) = value else {
            JSONRenderer.render(value, into: &out)
            return
        }
        let sorted = members.sorted { UTF16Order.compare($0.0, $1.0) < 0 }
        out.append(UInt8(ascii: "{"))
        for (i, member) in sorted.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            JSONRenderer.appendString(member.0, into: &out)
            out.append(UInt8(ascii: ":"))
            appendUniqueKey(member.1, into: &out)
        }
        out.append(UInt8(ascii: "}"))
    }

    public static func < (lhs: QueryIdentifier, rhs: QueryIdentifier) -> Bool { lhs.rawValue < rhs.rawValue }

    public var description: String { rawValue }
}
