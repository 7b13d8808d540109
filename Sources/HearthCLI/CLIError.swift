/// A failure of a command, printed as `Error: <message>` on stderr with exit status 1.
struct CLIError: Error, CustomStringConvertible {
    struct Code: Hashable, Sendable {
        private enum Base: Hashable, Sendable {
            case dataDirectoryInUse, dataDirectoryMissing, file, store, serve, remote
        }
        private let base: Base
        private init(_ base: Base) { self.base = base }
        /// A running server holds the data directory's lock.
        static let dataDirectoryInUse = Code(.dataDirectoryInUse)
        /// There is no data directory to read.
        static let dataDirectoryMissing = Code(.dataDirectoryMissing)
        /// An input or output file could not be read or written.
        static let file = Code(.file)
        /// The store refused or failed an operation.
        static let store = Code(.store)
        /// The server could not start or stopped with an error.
        static let serve = Code(.serve)
        /// A running server could not be reached, or refused or broke off a request.
        static let remote = Code(.remote)
    }

    let code: Code
    let message: String
    let cause: (any Error)?

    init(_ code: Code, _ message: String, cause: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.cause = cause
    }

    var description: String { message }
}
