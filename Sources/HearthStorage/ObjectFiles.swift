import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The objects' bytes: one file per generation in `<data>/storage/objects/`, never buffered
/// whole. An upload streams into `<data>/storage/tmp/<generation>`, is fsynced, renamed into
/// `objects/` and the directory fsynced, before its metadata is committed (`ObjectCatalog`); so
/// a crash leaves either a part file in `tmp/` or a file no metadata names, which the sweep at
/// start removes.
struct ObjectFiles: Sendable {
    let objects: String
    let temporary: String
    /// Resumable uploads' part files, by upload id: kept across restarts while their session is.
    let uploads: String

    /// Makes the directories under `root` when missing.
    init(root: String) throws(StorageError) {
        objects = root + "/objects"
        temporary = root + "/tmp"
        uploads = root + "/uploads"
        for directory in [objects, temporary, uploads] {
            do {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            } catch {
                throw StorageError(
                    .io,
                    "Cannot create the storage directory '\(directory)': \(error.localizedDescription)"
                )
            }
        }
    }

    /// The file of `generation`.
    func path(of generation: String) -> String { objects + "/" + generation }

    /// A new part file for `generation`, open for writing.
    func create(_ generation: String) throws(StorageError) -> PartFile {
        let path = temporary + "/" + generation
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw Self.failure("create", path) }
        return PartFile(descriptor: descriptor, path: path)
    }

    /// Moves a finished part file into `objects/` under its generation, durably: the file's bytes
    /// are fsynced before the rename and the directory after it.
    /// `syncingDirectory: false` leaves the directory's fsync to the caller (`syncObjects()`), who
    /// installs many files at once (a restore).
    func install(_ part: PartFile, as generation: String, syncingDirectory: Bool = true) throws(StorageError) {
        guard fsync(part.descriptor) == 0 else { throw Self.failure("fsync", part.path) }
        let target = path(of: generation)
        guard rename(part.path, target) == 0 else { throw Self.failure("rename", part.path) }
        if syncingDirectory { try syncObjects() }
    }

    /// Gives `source`'s file a second name, `generation`'s, durably (a copy shares the bytes of
    /// the version it copies: neither file is ever rewritten).
    func share(generation source: String, as generation: String) throws(StorageError) {
        let target = path(of: generation)
        guard link(path(of: source), target) == 0 else { throw Self.failure("link", target) }
        try syncObjects()
    }

    /// Makes the renames into `objects/` durable (fsyncs the directory).
    func syncObjects() throws(StorageError) { try Self.syncDirectory(objects) }

    /// The part file of resumable upload `id`.
    func sessionPath(_ id: String) -> String { uploads + "/" + id }

    /// Creates the empty part file of resumable upload `id`.
    func createSession(_ id: String) throws(StorageError) {
        let path = sessionPath(id)
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw Self.failure("create", path) }
        systemCloseDescriptor(descriptor)
    }

    /// The part file of resumable upload `id`, open for appending.
    func appendSession(_ id: String) throws(StorageError) -> PartFile {
        let path = sessionPath(id)
        let descriptor = open(path, O_WRONLY | O_APPEND | O_CLOEXEC)
        guard descriptor >= 0 else { throw Self.failure("open", path) }
        return PartFile(descriptor: descriptor, path: path)
    }

    /// The bytes resumable upload `id` has received (its part file's size), nil without a file.
    func sessionSize(_ id: String) -> UInt64? {
        var info = stat()
        guard stat(sessionPath(id), &info) == 0 else { return nil }
        return UInt64(info.st_size)
    }

    /// Moves resumable upload `id`'s part file into `objects/` durably (as `install` does).
    func installSession(_ id: String, as generation: String) throws(StorageError) {
        let part = try appendSession(id)
        defer { part.close() }
        try install(part, as: generation)
    }

    /// Moves `generation`'s file back to resumable upload `id` (its finalize did not commit);
    /// removes it when that fails.
    func restoreSession(_ id: String, from generation: String) {
        if rename(path(of: generation), sessionPath(id)) != 0 { remove(generation: generation) }
    }

    /// Removes resumable upload `id`'s part file; a missing one is fine.
    func removeSession(_ id: String) {
        unlink(sessionPath(id))
    }

    /// Removes the part files of resumable uploads `isLive` does not name.
    func sweepSessions(isLive: (String) -> Bool) -> Int {
        var removed = 0
        for name in (try? FileManager.default.contentsOfDirectory(atPath: uploads)) ?? [] where !isLive(name) {
            if unlink(uploads + "/" + name) == 0 { removed += 1 }
        }
        return removed
    }

    /// Removes a file (an object deleted or replaced, or an orphan); a missing one is fine.
    func remove(generation: String) {
        unlink(path(of: generation))
    }

    /// Removes every part file, and every object file `isLive` does not name.
    /// - Returns: how many files were removed.
    func sweep(isLive: (String) throws(StorageError) -> Bool) throws(StorageError) -> Int {
        var removed = 0
        for name in (try? FileManager.default.contentsOfDirectory(atPath: temporary)) ?? [] {
            if unlink(temporary + "/" + name) == 0 { removed += 1 }
        }
        for name in (try? FileManager.default.contentsOfDirectory(atPath: objects)) ?? [] where try !isLive(name) {
            if unlink(objects + "/" + name) == 0 { removed += 1 }
        }
        return removed
    }

    private static func syncDirectory(_ path: String) throws(StorageError) {
        let descriptor = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { throw failure("open", path) }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw failure("fsync", path) }
    }

    /// The failure of `operation` on `path` (from `errno`). A disk that refuses writes for now
    /// (full, read-only, failing) is a `.diskFault` whose message names the cause but not the
    /// server's files (the `detail`, for the log, does); anything else is `.io`.
    static func failure(_ operation: String, _ path: String) -> StorageError {
        let code = errno
        let detail = "Cannot \(operation) '\(path)': \(String(cString: strerror(code)))."
        let reason: String
        switch code {
        case ENOSPC, EDQUOT: reason = "the disk is full"
        case EROFS: reason = "the data directory is read-only"
        case EIO: reason = "the disk reported an I/O error"
        default: return StorageError(.io, detail)
        }
        return StorageError(
            .diskFault,
            "The upload is refused: \(reason). No object was stored. Uploads resume without a restart once the "
                + "disk takes them again (the server log has the details).",
            detail: detail
        )
    }
}

/// A part file being written (one upload). Used by one caller at a time; `discard()` removes it.
final class PartFile: @unchecked Sendable {
    let descriptor: Int32
    let path: String
    private var closed = false

    init(descriptor: Int32, path: String) {
        self.descriptor = descriptor
        self.path = path
    }

    /// Appends `bytes`, all of them.
    func write(_ bytes: UnsafeRawBufferPointer) throws(StorageError) {
        var offset = 0
        while offset < bytes.count {
            let written = systemWrite(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                throw ObjectFiles.failure("write", path)
            }
            offset += written
        }
    }

    /// Closes the descriptor (after `install`, or to discard).
    func close() {
        guard !closed else { return }
        closed = true
        systemClose(descriptor)
    }

    /// Closes and removes the part file.
    func discard() {
        close()
        unlink(path)
    }

    deinit { close() }
}

// The C library's calls, under names the part file's own methods do not shadow.
private func systemWrite(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
    write(descriptor, bytes, count)
}

private func systemClose(_ descriptor: Int32) {
    _ = close(descriptor)
}

func systemCloseDescriptor(_ descriptor: Int32) {
    _ = close(descriptor)
}
