#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An object's file, opened for reading before its download's answer starts. Whoever sends the
/// body `take`s the descriptor and closes it; an answer never sent (the connection closed before
/// its head) closes it here.
final class OpenObjectFile: @unchecked Sendable {
    private var descriptor: Int32

    /// Nil when the file cannot be opened (the object was deleted meanwhile).
    init?(path: String) {
        descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
    }

    /// The descriptor, now the caller's to close; once only.
    func take() -> Int32 {
        precondition(descriptor >= 0, "An object file's descriptor is taken once.")
        defer { descriptor = -1 }
        return descriptor
    }

    deinit {
        if descriptor >= 0 { _ = close(descriptor) }
    }
}
