/// A push provider that cannot be set up: a service-account file that is missing, unreadable or
/// lacks a field, a URL that is not one. The message names the file, field or value and says what
/// to do; it never contains a key or a secret.
public struct PushError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, as a value that can grow.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Value: Hashable, Sendable {
            case unreadableServiceAccount
            case invalidServiceAccount
            case invalidEndpoint
            case invalidWebhookURL
        }

        private let value: Value

        /// The service-account file cannot be read.
        public static let unreadableServiceAccount = Code(value: .unreadableServiceAccount)
        /// The service-account file is not a usable Google service-account key.
        public static let invalidServiceAccount = Code(value: .invalidServiceAccount)
        /// The FCM endpoint (or the file's `token_uri`) is not a usable URL.
        public static let invalidEndpoint = Code(value: .invalidEndpoint)
        /// The webhook's URL or secret is not usable.
        public static let invalidWebhookURL = Code(value: .invalidWebhookURL)

        public var description: String { "\(value)" }
    }

    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
