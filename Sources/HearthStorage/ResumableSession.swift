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
    /// Whether the admin started it: a finalize without a credential then acts as the admin
    /// (the session URL is the credential); anyone else's is judged as its own caller.
    public var startedByAdmin: Bool = false

    enum CodingKeys: String, CodingKey {
        case id, bucket, name, fields, expectedSize, startedAt, status, result, startedByAdmin
    }

    init(
        id: String,
        bucket: String,
        name: String,
        fields: ObjectFields,
        expectedSize: UInt64?,
        startedAt: Double,
        status: Status,
        result: ObjectMetadata?,
        startedByAdmin: Bool
    ) {
        self.id = id
        self.bucket = bucket
        self.name = name
        self.fields = fields
        self.expectedSize = expectedSize
        self.startedAt = startedAt
        self.status = status
        self.result = result
        self.startedByAdmin = startedByAdmin
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        bucket = try container.decode(String.self, forKey: .bucket)
        name = try container.decode(String.self, forKey: .name)
        fields = try container.decode(ObjectFields.self, forKey: .fields)
        expectedSize = try container.decodeIfPresent(UInt64.self, forKey: .expectedSize)
        startedAt = try container.decode(Double.self, forKey: .startedAt)
        status = try container.decode(Status.self, forKey: .status)
        result = try container.decodeIfPresent(ObjectMetadata.self, forKey: .result)
        // Sessions written before this field existed were all the admin's.
        startedByAdmin = try container.decodeIfPresent(Bool.self, forKey: .startedByAdmin) ?? true
    }
}
