import HearthRules
import Logging
import Synchronization

/// In a cluster: edits of this node's rules files for namespaces it has not loaded (another node
/// serves them). An admin edits the file on the node they are logged into and expects it to
/// take effect, so an edit that compiles and differs from the cluster's newest document is
/// published; the namespace's owner puts it in force (it follows the rules' logs). Files seed a
/// cluster that has none and never override it: the files there when the node starts are only
/// noted, and only a later edit (or a file created later) publishes.
///
/// The cost follows the rules folder, not the namespaces: one entry per rules file there.
final class UnloadedRulesFiles: Sendable {
    private let files: RulesFiles
    private let shared: any SharedRules
    private let logger: Logger
    /// Each rules file as last read (`text` nil: it could not be read).
    private let seen: Mutex<[String: RulesCatalog.FileState]>

    /// Notes the rules files there now.
    init(files: RulesFiles, shared: any SharedRules, logger: Logger) {
        self.files = files
        self.shared = shared
        self.logger = logger
        var seen: [String: RulesCatalog.FileState] = [:]
        for namespace in files.stamps().keys {
            let (_, file) = RulesCatalog.readFile(namespace, in: files)
            if file.stamp != nil { seen[namespace] = file }
        }
        self.seen = Mutex(seen)
    }

    /// Publishes the edits made since the last look to the files of namespaces not loaded here
    /// (`present`: the folder's rules files now). A publish that fails is tried at the next look.
    func poll(_ present: [String: RulesFileStamp], isLoaded: (String) -> Bool) async {
        let candidates = seen.withLock { seen -> [String] in
            seen = seen.filter { present[$0.key] != nil && !isLoaded($0.key) }
            return present.keys.filter { namespace in
                guard !isDefaultsAlias(namespace), !isLoaded(namespace) else { return false }
                guard let previous = seen[namespace] else { return true }
                return previous.racy || previous.stamp != present[namespace]
            }.sorted()
        }
        for namespace in candidates {
            let (_, now) = RulesCatalog.readFile(namespace, in: files)
            guard now.stamp != nil else { continue }
            let previousText = seen.withLock { $0[namespace]?.text }
            guard let text = now.text, text != previousText else {
                note(now, for: namespace)
                continue
            }
            if await publish(text, for: namespace) { note(now, for: namespace) }
        }
    }

    /// A namespace named like the default rules file (`database` for `database.rules.json`)
    /// would read that file too: its edits are the default namespace's.
    private func isDefaultsAlias(_ namespace: String) -> Bool {
        namespace != "default" && files.path(for: namespace) == files.path(for: "default")
    }

    private func note(_ file: RulesCatalog.FileState, for namespace: String) {
        seen.withLock { $0[namespace] = file }
    }

    /// True when the edit is done with: published, already the cluster's newest, or refused
    /// (logged once: it is noted and not tried again until the file changes).
    private func publish(_ text: String, for namespace: String) async -> Bool {
        let path = files.path(for: namespace)
        if case .failure(let diagnostics) = RulesDocument.compile(source: text, fileName: path) {
            RulesCatalog.logRefused(
                namespace,
                file: path,
                diagnostics: diagnostics,
                keeping: "the cluster's rules",
                logger: logger
            )
            return true
        }
        do {
            if try await shared.history(of: namespace, limit: 1).last?.text == text { return true }
            try await shared.publish(text, for: namespace, origin: RulesCatalog.Origin.file.rawValue)
            logger.info(
                "rules file edited; published to the cluster",
                metadata: ["hearth.ns": "\(namespace)", "hearth.rules.file": "\(path)"]
            )
            return true
        } catch {
            logger.warning(
                "rules file edited; not published yet (tried again at the next look)",
                metadata: ["hearth.ns": "\(namespace)", "hearth.error": "\(error)"]
            )
            return false
        }
    }
}
