/// A test precondition that did not hold, or a wait that ended without what it waited for.
public struct TestFailure: Error, CustomStringConvertible, Equatable {
    public let description: String
    public init(_ description: String) { self.description = description }
}
