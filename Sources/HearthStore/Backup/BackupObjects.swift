public import HearthCore

/// The two kinds of record a backup carries for Firebase Storage's objects (`BackupFormat`): an
/// object's catalog record, then its bytes in order, in records of at most
/// `BackupObjectRecord.maxBytes`. HearthStorage writes (`BackupObjectSource`) and reads
/// (`BackupObjectSink`) them; the store only frames them.
public enum BackupObjectRecord: Sendable {
    /// Key and value of the object's record in the storage catalog.
    case metadata
    /// Key: the object's generation; value: its next bytes.
    case bytes

    /// The most bytes of an object one record carries.
    public static let maxBytes = 1 << 20
}

/// The objects' part of a backup being read (`BackupStream`): it appends records to a chunk
/// when the store's and the accounts' records are done. Used by one caller at a time.
public protocol BackupObjectSource: AnyObject {
    /// Appends the next records to `chunk` until it holds `maxBytes` or more, or the objects end.
    /// - Returns: true when every object was appended.
    /// - Throws: `StoreError` when an object cannot be read (the backup then stops without its
    ///   end record, so no restore takes it for whole).
    func append(to chunk: inout BackupChunk, maxBytes: Int) throws(StoreError) -> Bool

    /// Releases what the source holds (its snapshot, an open file).
    func close()
}

/// The objects' part of a restore (`BackupRestore`): handed each object record in the
/// backup's order, then `finish()` once the backup's end record checked out.
public protocol BackupObjectSink: AnyObject {
    /// Takes one record.
    /// - Throws: `StoreError` `.corrupt` for a record out of place, `.io` when the disk refuses.
    func take(_ record: BackupObjectRecord, key: [UInt8], value: [UInt8]) throws(StoreError)

    /// Makes what was taken durable.
    func finish() throws(StoreError)

    /// Closes what is open (after a failure too).
    func close()
}

/// The bytes of a backup chunk under construction, with the count of records they hold.
public struct BackupChunk {
    /// The records appended, framed as `BackupFormat` says.
    public internal(set) var bytes: [UInt8]
    /// How many.
    public internal(set) var records: UInt64 = 0

    init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// An empty chunk.
    public init() { self.init(bytes: []) }

    /// The chunk's size so far.
    public var count: Int { bytes.count }

    /// Appends one record of an object.
    public mutating func append(_ record: BackupObjectRecord, key: [UInt8], value: UnsafeRawBufferPointer) {
        key.withUnsafeBytes { key in
            BackupFormat.appendRecord(BackupFormat.Tag(record), key: key, value: value, to: &bytes)
        }
        records += 1
    }
}
