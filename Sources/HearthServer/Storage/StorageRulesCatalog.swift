import Foundation
import HearthRules
import Logging
import Synchronization

/// The storage rules in force: `rules/storage.rules` (beside the database rules), compiled at
/// start (errors stop the server, as the database rules' do), reloaded when the file changes
/// (a version with errors is refused and the rules in force stay, logged with their
/// diagnostics), replaced by `PUT /.settings/storage.rules`. No file: nil, and only the admin
/// reads or writes files.
///
/// In a cluster (`follow`) the rules are the cluster's: the newest version in its log is in
/// force on every node; a node's file seeds a cluster that has none, and an edit of it (or a
/// `PUT`) publishes before it is in force. Removing a node's file changes nothing then.
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
    /// In a cluster: its storage rules and the position of the version in force.
    private let cluster = Mutex<(rules: ClusterStorageRules, position: Int64)?>(nil)

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

    /// Compiles `text`, publishes it in a cluster, writes it to the file (atomically) and puts
    /// it in force.
    /// - Throws: `RulesDiagnostics` for a document with errors (nothing changes); a file error;
    ///   the cluster's error when it could not be published (nothing changes).
    func replace(with text: String) async throws {
        let rules: StorageRules
        switch StorageRules.compile(source: text, fileName: (path as NSString).lastPathComponent) {
        case .success(let compiled): rules = compiled
        case .failure(let diagnostics): throw diagnostics
        }
        try await publish(text, origin: "put")
        let directory = (path as NSString).deletingLastPathComponent
        if !directory.isEmpty {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        }
        try Data(text.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
        let stamp = Self.stamp(path)
        state.withLock { $0 = State(rules: rules, text: text, stamp: stamp) }
        logger.info("storage rules replaced", metadata: ["hearth.rules.file": "\(path)"])
    }

    /// Reloads the file when it changed since it was last read (in a cluster, publishes it).
    func poll() async {
        let stamp = Self.stamp(path)
        guard stamp != state.withLock({ $0.stamp }) else { return }
        guard stamp != nil, let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            if cluster.withLock({ $0 != nil }) {
                state.withLock { $0.stamp = nil }
                return
            }
            state.withLock { $0 = State(rules: nil, text: nil, stamp: nil) }
            logger.info(
                "storage rules removed: only the admin reads or writes files",
                metadata: ["hearth.rules.file": "\(path)"]
            )
            return
        }
        switch StorageRules.compile(source: text, fileName: (path as NSString).lastPathComponent) {
        case .success(let rules):
            do {
                try await publish(text, origin: "file")
            } catch {
                // The stamp stays: the next tick tries again.
                logger.warning("storage rules not published", metadata: ["hearth.error": "\(error)"])
                return
            }
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

    // MARK: In a cluster

    /// Makes the rules the cluster's: its newest version goes in force; a cluster without any
    /// is given this node's file (when there is one).
    func follow(_ shared: ClusterStorageRules) async throws {
        if let newest = try await shared.newest() {
            cluster.withLock { $0 = (shared, 0) }
            adopt(newest)
        } else {
            var position: Int64 = 0
            if let text { position = try await shared.publish(text, origin: "file") }
            cluster.withLock { [position] in $0 = (shared, position) }
        }
    }

    /// Puts the cluster's newest version in force when it is newer than the one in force.
    func followCluster() async {
        guard let shared = cluster.withLock({ $0?.rules }) else { return }
        do {
            if let newest = try await shared.newest() { adopt(newest) }
        } catch {
            logger.warning("the cluster's storage rules were not read", metadata: ["hearth.error": "\(error)"])
        }
    }

    /// In a cluster: appends `text` to the cluster's versions (a no-op outside a cluster).
    private func publish(_ text: String, origin: String) async throws {
        guard let shared = cluster.withLock({ $0?.rules }) else { return }
        let position = try await shared.publish(text, origin: origin)
        cluster.withLock { current in
            if let held = current?.position { current?.position = max(held, position) }
        }
    }

    /// Puts `version` in force when it is newer than the version in force (one with errors is
    /// logged and passed over).
    private func adopt(_ version: (position: Int64, text: String)) {
        guard
            cluster.withLock({ current -> Bool in
                guard let position = current?.position, version.position > position else { return false }
                current?.position = version.position
                return true
            })
        else { return }
        switch StorageRules.compile(source: version.text, fileName: (path as NSString).lastPathComponent) {
        case .success(let rules):
            state.withLock { state in
                state.rules = rules
                state.text = version.text
            }
            logger.info(
                "storage rules of the cluster in force",
                metadata: ["hearth.rules.version": "\(version.position)"]
            )
        case .failure(let diagnostics):
            logger.error(
                "the cluster's storage rules have errors; keeping the rules in force",
                metadata: [
                    "hearth.rules.diagnostics": "\(diagnostics.description.replacingOccurrences(of: "\n", with: "\\n"))"
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
