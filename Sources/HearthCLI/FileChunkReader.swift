import Foundation

/// Reads a file (or stdin) in chunks of `chunkSize` bytes, so an import never holds the whole file.
final class FileChunkReader: Sendable {
    static let chunkSize = 1 << 20

    private let descriptor: Int32
    private let ownsDescriptor: Bool
    let displayName: String
    /// The file's size when it is a regular file, else nil (a pipe).
    let totalBytes: Int64?

    /// Opens `path` for reading; `-` reads stdin.
    init(path: String) throws {
        if path == "-" {
            descriptor = STDIN_FILENO
            ownsDescriptor = false
            displayName = "stdin"
        } else {
            descriptor = Foundation.open(path, O_RDONLY)
            guard descriptor >= 0 else {
                throw CLIError(.file, "Cannot read '\(path)': \(String(cString: strerror(errno))).")
            }
            ownsDescriptor = true
            displayName = path
        }
        var info = stat()
        if fstat(descriptor, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG {
            totalBytes = Int64(info.st_size)
        } else if fstat(descriptor, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR {
            if ownsDescriptor { close(descriptor) }
            throw CLIError(.file, "Cannot read '\(path)': it is a directory.")
        } else {
            totalBytes = nil
        }
    }

    deinit {
        if ownsDescriptor { close(descriptor) }
    }

    /// The next chunk of at most `chunkSize` bytes, or nil at the end of the input.
    func next() throws -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: Self.chunkSize)
        var filled = 0
        while filled < buffer.count {
            let count = buffer.withUnsafeMutableBytes { raw in
                read(descriptor, raw.baseAddress! + filled, raw.count - filled)
            }
            if count < 0 {
                if errno == EINTR { continue }
                throw CLIError(.file, "Cannot read '\(displayName)': \(String(cString: strerror(errno))).")
            }
            if count == 0 { break }
            filled += count
        }
        if filled == 0 { return nil }
        buffer.removeSubrange(filled...)
        return buffer
    }
}
