import Foundation
public import HearthCore
public import HearthDatabase

/// The end-to-end tests' commit observer: appends one line per commit, `<sequence> <paths>`
/// (each changed path, space-separated), to a file, with one `write(2)` per line, so what it
/// wrote survives `kill -9`.
public final class CommitFile: CommitObserver {
    public let name = "commit-file"
    private let descriptor: Int32

    /// - Throws: when the file cannot be opened for appending.
    public init(path: String) throws {
        descriptor = open(path, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        if descriptor < 0 { throw CommitFileError(path: path) }
    }

    deinit { close(descriptor) }

    public func committed(_ commit: CommittedWrite, namespace: String) throws {
        var paths: [String] = []
        switch commit.kind {
        case .set, .reset: paths = [commit.location.description]
        case .update(let entries): paths = entries.map { commit.location.appending($0.path).description }
        }
        let line = Array("\(commit.sequence) \(paths.joined(separator: " "))\n".utf8)
        let written = line.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        if written != line.count { throw CommitFileError(path: "(descriptor \(descriptor))") }
    }

    /// The lines of a commit file: each commit's sequence number and paths (a commit handed
    /// over again after a crash appears twice).
    public static func read(_ path: String) -> [(sequence: UInt64, paths: [String])] {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ").map(String.init)
            guard let first = fields.first, let sequence = UInt64(first) else { return nil }
            return (sequence, Array(fields.dropFirst()))
        }
    }
}

struct CommitFileError: Error, CustomStringConvertible {
    let path: String
    var description: String { "Cannot append to the commit file '\(path)'." }
}

extension DatabaseTriggers {
    /// The end-to-end tests' triggers: `ListChildCounter`, and a `CommitFile` at
    /// `commitFile` when given.
    public static func endToEnd(commitFile: String? = nil) throws -> DatabaseTriggers {
        var triggers = DatabaseTriggers()
        try triggers.add(ListChildCounter())
        if let commitFile { try triggers.add(CommitFile(path: commitFile)) }
        return triggers
    }
}
