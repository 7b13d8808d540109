import Crypto
import Foundation
import HearthCore

/// Writes a backup (`BackupFormat`) into an empty data directory: the store's keys into
/// `<directory>/db`, the accounts' into `<directory>/accounts/db`, its files beside them, its
/// objects through the `BackupObjectSink` given (HearthStorage's, into `<directory>/storage`). The
/// checksum and record count are verified at the end; a backup that fails them (truncated,
/// corrupted, not a backup) throws, and the caller removes what was written.
public final class BackupRestore {
    /// Bytes restored so far.
    public private(set) var bytesRead = 0
    public private(set) var header: BackupHeader?
    private let directory: String
    private var buffer: [UInt8] = []
    private var offset = 0
    private var hasher = SHA256()
    private var records: UInt64 = 0
    private var store: LevelDB?
    private var storeBatch = WriteBatch()
    private var accounts: KeyValueDatabase?
    private var accountChanges: [(key: [UInt8], value: [UInt8]?)] = []
    private var accountBytes = 0
    private var ended = false
    private let objects: (any BackupObjectSink)?

    /// - Parameter objects: where the backup's objects go; a backup that carries objects is
    ///   refused without one.
    /// - Throws: `StoreError` `.io` when `directory` holds anything.
    public init(directory: String, objects: (any BackupObjectSink)? = nil) throws {
        let manager = FileManager.default
        if let contents = try? manager.contentsOfDirectory(atPath: directory), !contents.isEmpty {
            throw StoreError(
                .io,
                "The data directory '\(directory)' is not empty: restore only into a new or empty directory."
            )
        }
        self.directory = directory
        self.objects = objects
    }

    /// Takes the next bytes of the backup.
    /// - Throws: `StoreError` `.corrupt` when the bytes are not a backup's.
    public func consume(_ chunk: [UInt8]) throws {
        guard !ended else { throw Self.corrupt("bytes after the end of the backup") }
        bytesRead += chunk.count
        if offset > 0 {
            // What was parsed goes (into the checksum first); a partial record stays.
            hasher.update(data: buffer[0..<offset])
            buffer.removeSubrange(0..<offset)
            offset = 0
        }
        buffer += chunk
        try parse()
    }

    /// Checks that the backup ended whole and makes what was written durable.
    /// - Returns: the backup's header.
    public func finish() throws -> BackupHeader {
        guard ended, let header else { throw Self.corrupt("it ends before its end record (truncated?)") }
        try flushStore(sync: true)
        try flushAccounts(sync: true)
        try objects?.finish()
        close()
        return header
    }

    /// Closes the databases opened (after a failure too).
    public func close() {
        store?.close()
        store = nil
        accounts?.close()
        accounts = nil
        objects?.close()
    }

    deinit { close() }

    private func parse() throws {
        if header == nil {
            guard let parsed = try readHeader() else { return }
            header = parsed
        }
        while !ended {
            guard offset < buffer.count else { return }
            let start = offset
            guard let tag = BackupFormat.Tag(rawValue: buffer[offset]) else {
                throw Self.corrupt(
                    "an unknown record type \(buffer[offset]) at byte \(bytesRead - (buffer.count - offset))"
                )
            }
            if tag == .end {
                guard buffer.count - offset >= 1 + 8 + 32 else { return }
                hasher.update(data: buffer[0..<offset])
                let count = buffer[(offset + 1)..<(offset + 9)].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
                let digest = Array(buffer[(offset + 9)..<(offset + 41)])
                guard count == records else {
                    throw Self.corrupt("it holds \(records) records where its end says \(count)")
                }
                guard digest == Array(hasher.finalize()) else { throw Self.corrupt("its checksum does not match") }
                offset += 41
                ended = true
                guard offset == buffer.count else { throw Self.corrupt("bytes after the end of the backup") }
                return
            }
            offset += 1
            guard let key = try readField(), let value = try readField() else {
                offset = start
                return
            }
            try apply(tag, key: key, value: value)
            records += 1
        }
    }

    private func readHeader() throws -> BackupHeader? {
        let fixed = BackupFormat.magic.count + 1
        guard buffer.count >= fixed else { return nil }
        guard Array(buffer[0..<BackupFormat.magic.count]) == BackupFormat.magic else {
            throw StoreError(.corrupt, "This is not a Hearth backup (it does not start with 'HEARTH-BACKUP').")
        }
        guard BackupFormat.readableVersions.contains(buffer[BackupFormat.magic.count]) else {
            throw StoreError(
                .corrupt,
                "This backup has format version \(buffer[BackupFormat.magic.count]); this hearth reads versions \(BackupFormat.readableVersions.lowerBound) to \(BackupFormat.readableVersions.upperBound): restore it with the hearth that made it."
            )
        }
        offset = fixed
        guard let json = try readField() else {
            offset = 0
            return nil
        }
        guard let value = try? JSONParser.parse(json), let namespaces = value["namespaces"]?.objectValue,
            let createdAt = value["createdAt"]?.numberValue
        else { throw Self.corrupt("its header is not valid") }
        var sequences: [String: UInt64] = [:]
        for (name, sequence) in namespaces {
            guard let number = sequence.numberValue, number >= 0 else { throw Self.corrupt("its header is not valid") }
            sequences[name] = UInt64(number)
        }
        return BackupHeader(createdAt: createdAt, namespaces: sequences)
    }

    /// A length-prefixed field at `offset`, or nil when the buffer does not hold all of it yet.
    private func readField() throws -> [UInt8]? {
        var length = 0
        var shift = 0
        var cursor = offset
        while true {
            guard cursor < buffer.count else { return nil }
            let byte = buffer[cursor]
            cursor += 1
            length |= Int(byte & 0x7f) << shift
            if byte < 0x80 { break }
            shift += 7
            guard shift < 35 else { throw Self.corrupt("a length field is malformed") }
        }
        guard length <= BackupFormat.maxLength else { throw Self.corrupt("a record claims \(length) bytes") }
        guard buffer.count - cursor >= length else { return nil }
        offset = cursor + length
        return Array(buffer[cursor..<(cursor + length)])
    }

    private func apply(_ tag: BackupFormat.Tag, key: [UInt8], value: [UInt8]) throws {
        switch tag {
        case .store:
            if store == nil {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
                store = try LevelDB(path: directory + "/db", writeBufferSize: 8 << 20)
            }
            storeBatch.put(key, value)
            if storeBatch.byteSize > 4 << 20 { try flushStore(sync: false) }
        case .accounts:
            if accounts == nil {
                try FileManager.default.createDirectory(
                    atPath: directory + "/accounts",
                    withIntermediateDirectories: true
                )
                accounts = try KeyValueDatabase(path: directory + "/accounts/db")
            }
            accountChanges.append((key, value))
            accountBytes += key.count + value.count
            if accountBytes > 4 << 20 { try flushAccounts(sync: false) }
        case .file:
            let name = String(decoding: key, as: UTF8.self)
            guard BackupFormat.fileNames.contains(name) else {
                throw Self.corrupt("it carries an unknown file '\(name)'")
            }
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let path = directory + "/" + name
            guard
                FileManager.default.createFile(
                    atPath: path,
                    contents: Data(value),
                    attributes: [.posixPermissions: 0o600]
                )
            else { throw StoreError(.io, "Cannot write '\(path)'.") }
        case .objectMetadata, .objectBytes:
            guard let objects else {
                throw Self.corrupt("it carries storage objects and this restore takes none")
            }
            let record: BackupObjectRecord = tag == .objectMetadata ? .metadata : .bytes
            try objects.take(record, key: key, value: value)
        case .end:
            preconditionFailure("the end record is read by parse()")
        }
    }

    private func flushStore(sync: Bool) throws {
        guard let store else { return }
        try store.write(storeBatch, sync: sync)
        storeBatch = WriteBatch()
    }

    private func flushAccounts(sync: Bool) throws {
        guard let accounts, !accountChanges.isEmpty || sync else { return }
        try accounts.apply(accountChanges, sync: sync)
        accountChanges = []
        accountBytes = 0
    }

    private static func corrupt(_ why: String) -> StoreError {
        StoreError(.corrupt, "The backup is damaged: \(why). Nothing usable was restored.")
    }
}
