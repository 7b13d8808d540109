import Foundation
import HearthCore

/// A LevelDB failure in words a user can act on: what went wrong with the disk (full, read-only,
/// an I/O error, damaged files) and what to do about it. Recognised from LevelDB's status text,
/// the only form its C API gives (`IO error: <file>: <strerror>`, `Corruption: ...`).
struct StorageFault: Sendable, Equatable {
    enum Cause: Sendable, Equatable {
        case diskFull, readOnly, permissionDenied, ioError, damaged, other
    }

    let cause: Cause
    /// LevelDB's own text, kept for the log and for the user.
    let detail: String

    init(_ detail: String) {
        self.detail = detail
        cause = Self.cause(of: detail)
    }

    private static func cause(of detail: String) -> Cause {
        if detail.hasPrefix("Corruption") || detail.contains("checksum mismatch") { return .damaged }
        if detail.contains("No space left on device") || detail.contains("Disk quota exceeded") { return .diskFull }
        if detail.contains("Read-only file system") { return .readOnly }
        if detail.contains("Permission denied") || detail.contains("Operation not permitted") {
            return .permissionDenied
        }
        if detail.contains("Input/output error") || detail.hasPrefix("IO error") { return .ioError }
        return .other
    }

    /// The cause as the end of a sentence ("... because the disk is full").
    var reason: String {
        switch cause {
        case .diskFull: return "the disk is full"
        case .readOnly: return "the data directory is read-only"
        case .permissionDenied: return "the data directory may not be written (permission denied)"
        case .ioError: return "the disk reported an I/O error"
        case .damaged: return "the store's files are damaged"
        case .other: return "LevelDB failed"
        }
    }

    /// The refusal of a write while the fault lasts. Clients get the cause, not LevelDB's text
    /// (it names files of the server); the store logs that (`LevelDB.noteWriteFault`).
    func writeRefusal() -> StoreError {
        if cause == .damaged { return damage() }
        return StoreError(
            .storageFailure,
            "Writes are refused: \(reason). Nothing was written. Hearth retries by itself: writes resume "
                + "without a restart once the disk takes them again (the server log has the details)."
        )
    }

    /// The refusal of anything (reads included) once the store's files were found damaged.
    func damage() -> StoreError {
        StoreError(
            .damaged,
            "The store's files are damaged (\(summary)): the server refuses writes. Stop it and run "
                + "`hearth doctor` on its data directory, then `hearth doctor --repair`, to see and repair what "
                + "LevelDB can (the server log has the details)."
        )
    }

    /// LevelDB's text up to the first file name (`Corruption: block checksum mismatch`).
    private var summary: String {
        let text = detail.split(separator: "/", maxSplits: 1).first.map(String.init) ?? detail
        let trimmed = text.trimmingCharacters(in: CharacterSet(charactersIn: " :"))
        return trimmed.isEmpty ? "LevelDB reported damage" : trimmed
    }
}
