import HearthDatabase

/// An admin's shallow stream (a Hearth extension; Firebase streams nothing shallow):
/// `GET /path.json?shallow=true&limitToFirst=N[&startAfter=K][&endAt=E]` with
/// `Accept: text/event-stream` follows the children after `K` up to `E` in key order, at most
/// `N` (1 to `ShallowRange.maxLimit`), each as a shallow read shows it (a leaf's value, `true`
/// for a child with children): the console's live page of a large node, never a subtree.
enum ShallowStreamRange {
    /// The range `shallow` asks for, or a 400 naming what to change.
    static func range(of shallow: RESTOptions.Shallow) throws -> ShallowRange {
        guard let limit = shallow.limit else {
            throw RESTError.badRequest(
                "limitToFirst is required with shallow=true on a stream: follow at most \(ShallowRange.maxLimit) children."
            )
        }
        guard (1...ShallowRange.maxLimit).contains(limit) else {
            throw RESTError.badRequest(
                "Invalid limitToFirst '\(limit)': a shallow stream follows 1 to \(ShallowRange.maxLimit) children."
            )
        }
        return ShallowRange(startAfter: shallow.startAfter, endAt: shallow.endAt, limit: limit)
    }
}
