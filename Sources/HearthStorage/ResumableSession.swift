/// A resumable upload (`X-Goog-Upload-Protocol: resumable`): what its start said and where it
/// stands. Kept in the catalog, its bytes in `uploads/<id>`, so it survives a restart; it expires
/// `ObjectStore.sessionLifetime` after its start.
public struct ResumableSession: Codable, Equatable, Sendable {
    public enum Status: String, Codable, Sendable {
        case active, final, cancelled
    }

    /// Unguessable: the session URL is the upload's credential.
    public let id: String
    public let bucket: String
    public let name: String
    public let fields: ObjectFields
    /// The size the start announced (`X-Goog-Upload-Header-Content-Length`), if any: a finalize
    /// with fewer bytes is refused.
    public let expectedSize: UInt64?
    /// Milliseconds since 1970.
    public let startedAt: Double
    public var status: Status
    /// The object a finalize made (a second finalize answers it again).
    public var result: ObjectMetadata?
}
