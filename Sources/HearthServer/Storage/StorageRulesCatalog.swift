import Foundation
import HearthRules
import Logging
import Synchronization

/// The storage rules in force: `rules/storage.rules` (beside the database rules), compiled at
/// start (errors stop the server, as the database rules' do), reloaded when the file changes
/// (a version with errors is refused and the rules in force stay, logged with their
/// diagnostics), replaced by `PUT /.settings/storage.rules`. No file: nil, and only the admin
/// reads or writes files.
final class StorageRulesCatalog: Sendable {
    let path: String
    let logger: Logger
    private struct State {
        var rules: StorageRules?
        var text: String?
        /// The file's modification time and size when last read.
        var stamp: FileStamp?
    }
    private let state: Mutex<State>

    struct FileStamp: Equatable {
        let modified: Date
        let size: Int
    }

    /// Loads the file at `path`.
    /// - Throws: `HearthServerError` naming every diagnostic when the file has errors.
    init(path: String, logger: Logger) throws {
        self.path = path
        self.logger = logger
        let stamp = Self.stamp(path)
        guard stamp != nil, let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            state = Mutex(State(rules: nil, text: nil, stamp: nil))
            return
        }
        switch StorageRules.compile(source: text, fileName: (path as NSString).lastPathComponent) {
        case .success(let rules): state = Mutex(State(rules: rules, text: text, stamp: stamp))
        case .failure(let diagnostics):
            throw HearthServerError("The storage rules file '\(path)' has errors:\n\(diagnostics)")
        }
    }

    /// The rules in force; nil when there is no rules file.
    var rules: StorageRules? { state.withLock { $0.rules } }

    /// The document in force, as written.
    var text: String? { state.withLock { $0.text } }

    /// Compiles `text`, writes it to the file (atomically) and puts it in force.
    /// - Throws: `RulesDiagnostics` for a document with errors (nothing changes); a file error.
    func replace(with text: String) throws {
        let rules: StorageRules
        switch StorageRules.compile(source: text, fileName: (path as NSString).lastPathComponent) {
        case .success(let compiled): rules = compiled
        case .failure(let diagnostics): throw diagnostics
        }
        let directory = (path as NSString).deletingLastPathComponent
        if !directory.isEmpty {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        }
        try Data(text.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
        let stamp = Self.stamp(path)
        state.withLock { $0 = State(rules: rules, text: text, stamp: stamp) }
        logger.info("storage rules replaced", metadata: ["hearth.rules.file": "\(path)"])
    }

    /// Reloads the file when it changed since it was last read.
    func poll() {
        let stamp = Self.stamp(path)
        guard stamp != state.withLock({ $0.stamp }) else { return }
        guard stamp != nil, let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            state.withLock { $0 = State(rules: nil, text: nil, stamp: nil) }
            logger.info(
                "storage rules removed: only the admin reads or writes files",
                metadata: ["hearth.rules.file": "\(path)"]
            )
            return
        }
        switch StorageRules.compile(source: text, fileName: (path as NSString).lastPathComponent) {
        case .success(let rules):
            state.withLock { $0 = State(rules: rules, text: text, stamp: stamp) }
            logger.info("storage rules reloaded", metadata: ["hearth.rules.file": "\(path)"])
        case .failure(let diagnostics):
            // Remember the stamp: the same broken version is reported once, not every tick.
            state.withLock { $0.stamp = stamp }
            logger.error(
                "storage rules refused; keeping the rules in force",
                metadata: [
                    "hearth.rules.file": "\(path)",
                    "hearth.rules.diagnostics":
                        "\(diagnostics.description.replacingOccurrences(of: "\n", with: "\\n"))",
                ]
            )
        }
    }

    private static func stamp(_ path: String) -> FileStamp? {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
            let modified = attributes[.modificationDate] as? Date,
            let size = attributes[.size] as? Int
        else { return nil }
        return FileStamp(modified: modified, size: size)
    }
}
