/// A failure to start or run the server (bad rules file, TLS setup, bind failure, ...).
public struct HearthServerError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure this is; compare with the static members.
    public struct Code: Hashable, Sendable {
        private enum Base: Hashable, Sendable {
            case startup, addressInUse, dataDirectoryInUse
        }
        private let base: Base
        private init(_ base: Base) { self.base = base }
        /// The server could not start or stopped (a bad rules or seed file, TLS setup, ...).
        public static let startup = Code(.startup)
        /// The address and port to listen on are taken.
        public static let addressInUse = Code(.addressInUse)
        /// Another process holds the data directory (its accounts or its JSON tree).
        public static let dataDirectoryInUse = Code(.dataDirectoryInUse)
    }

    public let code: Code
    public let message: String

    public init(_ message: String) { self.init(.startup, message) }

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
