/// A failure to start or run the server (bad rules file, TLS setup, bind failure, ...).
public struct HearthServerError: Error, Sendable, CustomStringConvertible {
    public let message: String

    public init(_ message: String) { self.message = message }

    public var description: String { message }
}
