import HearthCore

/// `orderBy`, `startAt`, `endAt`, `equalTo`, `startAfter`, `endBefore`, `limitToFirst`,
/// `limitToLast` → a `Query`, with Firebase's validation messages.
enum QueryParameters {
    static let orderByMissing = "orderBy must be defined when other query parameters are defined"
    static let orderByInvalid = "orderBy must be a valid JSON encoded path"
    static let keyBoundInvalid = "Provided key index type is invalid, must be string"

    /// nil when the request has no query parameters.
    static func parse(_ q: QueryString) throws -> Query? {
        let present = RESTOptions.queryParameterNames.filter { q.contains($0) }
        guard let orderByText = q["orderBy"] else {
            if !present.isEmpty { throw RESTError.badRequest(orderByMissing) }
            return nil
        }
        guard case .string(let orderBy)? = JSONScalar.parse(orderByText), !orderBy.isEmpty else {
            throw RESTError.badRequest(orderByInvalid)
        }
        var query = Query()
        switch orderBy {
        case "$key": query.order = .key
        case "$value": query.order = .value
        case "$priority": query.order = .priority
        default:
            guard !orderBy.hasPrefix("$"), let path = try? CoreBridge.parsePath(orderBy), !path.isRoot else {
                throw RESTError.badRequest(orderByInvalid)
            }
            query.order = .child(path)
        }

        if q.contains("limitToFirst") && q.contains("limitToLast") {
            throw RESTError.badRequest("limitToFirst and limitToLast cannot both be set")
        }
        if let n = q["limitToFirst"] { query.limit = .first(try parseLimit(n, name: "limitToFirst")) }
        if let n = q["limitToLast"] { query.limit = .last(try parseLimit(n, name: "limitToLast")) }

        if q.contains("equalTo") {
            for other in ["startAt", "startAfter", "endAt", "endBefore"] where q.contains(other) {
                throw RESTError.badRequest("equalTo cannot be combined with \(other)")
            }
        }
        if q.contains("startAt") && q.contains("startAfter") {
            throw RESTError.badRequest("startAt and startAfter cannot both be set")
        }
        if q.contains("endAt") && q.contains("endBefore") {
            throw RESTError.badRequest("endAt and endBefore cannot both be set")
        }

        func bound(_ name: String) throws -> QueryBound? {
            guard let text = q[name] else { return nil }
            guard let scalar = JSONScalar.parse(text) else {
                throw RESTError.badRequest(
                    "Invalid \(name) '\(text)': use a JSON string, number, boolean or null, e.g. \(name)=\"a\"."
                )
            }
            switch query.order {
            case .key:
                guard case .string = scalar else { throw RESTError.badRequest(keyBoundInvalid) }
            case .priority:
                if case .bool = scalar {
                    throw RESTError.badRequest(
                        "Invalid \(name) '\(text)': when ordering by priority, use a number, a string or null."
                    )
                }
            default:
                break
            }
            return QueryBound(value: scalar.leaf)
        }

        if let equal = try bound("equalTo") {
            query.start = equal
            query.end = equal
        }
        if let start = try bound("startAt") { query.start = start }
        if let start = try bound("startAfter") {
            query.start = start
            query.startIsExclusive = true
        }
        if let end = try bound("endAt") { query.end = end }
        if let end = try bound("endBefore") {
            query.end = end
            query.endIsExclusive = true
        }
        return query
    }

    static func parseLimit(_ text: String, name: String) throws -> Int {
        guard let n = Int(text), n >= 0, n <= Int(Int32.max) else {
            throw RESTError.badRequest("Invalid \(name) '\(text)': use a non-negative integer.")
        }
        return n
    }
}
