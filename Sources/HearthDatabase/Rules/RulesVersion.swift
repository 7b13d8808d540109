/// A rules document a namespace had in force (`Database.rulesHistory(for:)`).
public struct RulesVersion: Sendable, Equatable {
    /// Counts up per namespace from 1.
    public var version: UInt64
    /// Milliseconds since 1970 when it was put in force.
    public var publishedAt: Double
    /// How it came: `put` (the REST API or a rollback), `file` (an edit of the file), `load`.
    public var origin: String
    public var text: String

    public init(version: UInt64, publishedAt: Double, origin: String, text: String) {
        self.version = version
        self.publishedAt = publishedAt
        self.origin = origin
        self.text = text
    }
}
