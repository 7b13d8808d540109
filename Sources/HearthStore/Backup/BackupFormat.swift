import Crypto

/// The layout of a backup file (`hearth backup`, `GET /.backup`), read back by `BackupRestore`:
///
///     "HEARTH-BACKUP" 0x0A  version (1 byte, 2)
///     header: varint length, JSON {"createdAt": ms, "namespaces": {name: sequence}}
///     records: tag (1 byte), varint key length, key, varint value length, value
///       's' a key of the store's LevelDB (every table: data, indexes, lookups, rules history,
///           onDisconnect records, the commit log), 'a' a key of the accounts' LevelDB,
///       'f' a file of the data directory (key: its name, value: its bytes),
///       'c' a storage object's catalog record (key and value as the storage catalog holds
///           them), then 'b' records with its bytes in order (key: its generation, value: at
///           most 1 MiB of bytes each); written and read by HearthStorage (`BackupObjectSource`,
///           `BackupObjectSink`)
///     end: 'e', the record count (8 bytes, big-endian), the SHA-256 of every byte before 'e'
///
/// Keys are copied as LevelDB holds them, so a restored store is the backed-up one at the
/// snapshot's moment, byte for byte: the sequence numbers in the header are the namespaces'.
/// Version 1 is version 2 without objects ('c' and 'b'); both restore.
public enum BackupFormat {
    static let magic: [UInt8] = Array("HEARTH-BACKUP\n".utf8)
    static let version: UInt8 = 2
    /// The versions a restore reads.
    static let readableVersions: ClosedRange<UInt8> = 1...2

    enum Tag: UInt8 {
        case store = 0x73  // s
        case accounts = 0x61  // a
        case file = 0x66  // f
        case objectMetadata = 0x63  // c
        case objectBytes = 0x62  // b
        case end = 0x65  // e

        init(_ record: BackupObjectRecord) {
            switch record {
            case .metadata: self = .objectMetadata
            case .bytes: self = .objectBytes
            }
        }
    }

    /// A header or record length above this is refused as corrupt (LevelDB keys and values of
    /// Hearth are far smaller: a leaf's value is at most 10 MB).
    static let maxLength = 64 << 20

    /// The data directory's files a backup may carry (the accounts' token key); any other name
    /// in a backup is refused, so a crafted file cannot write outside the directory.
    public static let fileNames: Set<String> = ["jwt-secret"]

    static func appendVarint(_ value: Int, to out: inout [UInt8]) {
        var rest = UInt64(value)
        while rest >= 0x80 {
            out.append(UInt8(truncatingIfNeeded: rest) | 0x80)
            rest >>= 7
        }
        out.append(UInt8(rest))
    }

    static func appendRecord(
        _ tag: Tag,
        key: UnsafeRawBufferPointer,
        value: UnsafeRawBufferPointer,
        to out: inout [UInt8]
    ) {
        out.append(tag.rawValue)
        appendVarint(key.count, to: &out)
        out.append(contentsOf: key)
        appendVarint(value.count, to: &out)
        out.append(contentsOf: value)
    }
}

/// What a backup says about itself.
public struct BackupHeader: Sendable, Equatable {
    /// Milliseconds since 1970 when its snapshot was taken.
    public var createdAt: Double
    /// Each namespace's sequence number at the snapshot.
    public var namespaces: [String: UInt64]

    public init(createdAt: Double, namespaces: [String: UInt64]) {
        self.createdAt = createdAt
        self.namespaces = namespaces
    }
}
