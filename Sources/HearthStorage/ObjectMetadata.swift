/// What the store keeps about one object: the fields of Firebase's object metadata. Stored as
/// JSON in the catalog (`ObjectCatalog`); the bytes are in the file `generation` names
/// (`ObjectFiles`).
public struct ObjectMetadata: Codable, Hashable, Sendable {
    public var bucket: String
    public var name: String
    /// The object's version: a new upload to the same name gets a new one (and a new file).
    public var generation: String
    /// Counts metadata changes of this generation from 1.
    public var metageneration: Int
    public var size: UInt64
    /// The MD5 of the bytes, base64 (as Cloud Storage gives it).
    public var md5Hash: String
    /// The CRC-32C of the bytes, base64 of its big-endian bytes.
    public var crc32c: String
    public var contentType: String?
    /// Milliseconds since 1970.
    public var timeCreated: Double
    /// Milliseconds since 1970 of the last change (upload or metadata).
    public var updated: Double
    /// The tokens that read the bytes without a credential (`?alt=media&token=`).
    public var downloadTokens: [String]
    /// The user's own key-value pairs (`customMetadata`).
    public var metadata: [String: String]
    public var cacheControl: String?
    public var contentDisposition: String?
    public var contentEncoding: String?
    public var contentLanguage: String?
    /// Cloud Storage's access-control list as the JSON API set it (`ObjectACLEntry`: kept and
    /// given back, not consulted); nil when never set.
    public var acl: [ObjectACLEntry]?

    /// The most bytes custom metadata (keys and values) may take.
    public static let maxCustomMetadataBytes = 8 * 1024

    public init(
        bucket: String,
        name: String,
        generation: String,
        size: UInt64,
        md5Hash: String,
        crc32c: String,
        contentType: String?,
        time: Double,
        downloadTokens: [String],
        metadata: [String: String] = [:]
    ) {
        self.bucket = bucket
        self.name = name
        self.generation = generation
        self.metageneration = 1
        self.size = size
        self.md5Hash = md5Hash
        self.crc32c = crc32c
        self.contentType = contentType
        self.timeCreated = time
        self.updated = time
        self.downloadTokens = downloadTokens
        self.metadata = metadata
    }

    /// Checks what a client may set: custom metadata within `maxCustomMetadataBytes`.
    /// - Throws: `StorageError` `.invalidMetadata`.
    static func check(custom metadata: [String: String]) throws(StorageError) {
        let bytes = metadata.reduce(0) { $0 + $1.key.utf8.count + $1.value.utf8.count }
        guard bytes <= maxCustomMetadataBytes else {
            throw StorageError(
                .invalidMetadata,
                "Custom metadata takes \(bytes) bytes; at most \(maxCustomMetadataBytes) are allowed."
            )
        }
    }
}
