import Foundation
import HearthCore
public import HearthRules
import HearthStore
import Logging
import Synchronization

/// The rules in force in every namespace, the one place they live: each namespace's
/// `NamespaceRules` (which its engine judges requests with), loaded from its file on first use
/// with its `.indexOn` entries applied to the store, replaced by `replace(_:for:)` (`PUT
/// /.settings/rules.json`) and reloaded when the file changes on disk (`poll()`).
///
/// The program in force is read without waiting (`loadedProgram(for:)`); loads, reloads and
/// replacements of one namespace run one at a time (`SerialByKey`).
public final class RulesCatalog: Sendable {
    /// Called after a new program is installed for a namespace (its indexes applied).
    typealias Observer = @Sendable (_ namespace: String, _ program: RuleProgram) -> Void

    /// How a namespace's file looked when it was last read.
    struct FileState: Sendable {
        /// nil: there was no file.
        var stamp: RulesFileStamp?
        /// The stamp may not show a change made soon after: compare the text on the next polls.
        var racy: Bool
        /// Text (or read failure) refused last time, so that one bad edit is logged once.
        var rejected: String? = nil
        /// The text read at this stamp (nil: none was). In a cluster the rules in force may
        /// be another node's: an edit is a text unlike this one, not unlike the rules in force.
        var text: String? = nil
    }

    /// What a read of a rules file found.
    enum FileContent {
        case missing
        case text(String)
        case unreadable(String)
    }

    /// Why a program is installed (for the log).
    enum Origin: String {
        case load, file, put
    }

    /// What `poll()` compares with.
    private struct Watch {
        /// Every loaded namespace's file, as last read. Set only through `record(_:for:)`.
        var fileStates: [String: FileState] = [:]
        /// The loaded namespaces whose file existed when read (or may change unseen): a poll
        /// looks at them even when the folder no longer lists their file.
        var watchedWithoutListing: Set<String> = []
    }

    let files: RulesFiles
    /// In a cluster, where the rules are kept (`SharedRules`); the files only seed it.
    let shared: (any SharedRules)?
    private let store: Store
    private let logger: Logger
    /// Each namespace's rules, shared with its engine; a namespace's entry is made on first
    /// use and holds no program until its first load.
    private let rules = Mutex<[String: NamespaceRules]>([:])
    private let observers = Mutex<[Observer]>([])
    private let watch = Mutex(Watch())
    private let serial = SerialByKey()
    /// In a cluster, edits of the files of namespaces not loaded here (`poll()`).
    private let unloadedFiles: UnloadedRulesFiles?

    init(files: RulesFiles, store: Store, shared: (any SharedRules)? = nil, logger: Logger) {
        self.files = files
        self.shared = shared
        unloadedFiles = shared.map { UnloadedRulesFiles(files: files, shared: $0, logger: logger) }
        self.store = store
        self.logger = logger
    }

    // MARK: Reading the rules in force

    /// The namespace's rules, shared by everything that judges its requests (created empty on
    /// first use).
    func rules(for namespace: String) -> NamespaceRules {
        rules.withLock { table in
            if let existing = table[namespace] { return existing }
            let created = NamespaceRules(clock: store.clock)
            table[namespace] = created
            return created
        }
    }

    /// The namespace's program if it is loaded (cheap, synchronous: the per-request path).
    public func loadedProgram(for namespace: String) -> RuleProgram? {
        rules.withLock { $0[namespace] }?.current
    }

    /// The namespace's program in force; loads the file, compiles it and applies its indexes on
    /// first use. A file that does not compile is logged and the namespace gets the default
    /// rules (nobody but admin).
    public func program(for namespace: String) async throws -> RuleProgram {
        if let program = loadedProgram(for: namespace) { return program }
        return try await load(namespace, strict: false)
    }

    /// The verbatim text of the namespace's rules in force (comments kept).
    public func document(for namespace: String) async throws -> String {
        try await program(for: namespace).source.text
    }

    /// Calls `handler` every time a new program is installed for a namespace (first load, file
    /// edit, PUT), once per install, after its indexes are applied; never for a refused document.
    func observe(_ handler: @escaping Observer) {
        observers.withLock { $0.append(handler) }
    }

    // MARK: Loading

    /// Loads the namespaces present at start. The default namespace's file must compile: its
    /// diagnostics stop the server from starting.
    /// - Throws: `DatabaseError` `.invalidRules` or `.unreadableRules` for the default file.
    public func loadAtStart(_ namespaces: [String]) async throws {
        for namespace in namespaces {
            _ = try await load(namespace, strict: namespace == "default")
        }
    }

    private func load(_ namespace: String, strict: Bool) async throws -> RuleProgram {
        try await serial.run(namespace) { try await self.loadNow(namespace, strict: strict) }
    }

    private func loadNow(_ namespace: String, strict: Bool) async throws -> RuleProgram {
        if let program = loadedProgram(for: namespace) { return program }
        let path = files.path(for: namespace)
        var (content, state) = readFile(namespace)
        var program = defaultProgram(for: namespace)
        switch content {
        case .missing:
            break
        case .text(let text):
            switch RulesDocument.compile(source: text, fileName: path) {
            case .success(let compiled):
                program = compiled
            case .failure(let diagnostics):
                if strict { throw DatabaseError.invalidRules("The rules file '\(path)' has errors:\n\(diagnostics)") }
                logRefused(namespace, diagnostics: diagnostics, keeping: "the default rules (admin only)")
                state.rejected = text
            }
        case .unreadable(let reason):
            if strict { throw DatabaseError.unreadableRules(reason) }
            logUnreadable(namespace, reason: reason, keeping: "the default rules (admin only)")
            state.rejected = reason
        }
        try await install(program, for: namespace, file: state, origin: .load)
        return program
    }

    // MARK: A cluster's rules

    /// In a cluster, when this node takes `namespace` over: puts the cluster's newest document
    /// in force (whatever this node had); when the cluster has none, loads this node's file as
    /// on a single server and, when there is one that compiles, publishes it (a node's file
    /// seeds a cluster that has none). A no-op outside a cluster.
    public func adopt(_ namespace: String) async throws {
        guard let shared else { return }
        try await serial.run(namespace) {
            if let newest = try await shared.history(of: namespace, limit: 1).last {
                if self.loadedProgram(for: namespace)?.source.text == newest.text { return }
                switch RulesDocument.compile(source: newest.text, fileName: self.files.path(for: namespace)) {
                case .success(let program):
                    let (_, state) = self.readFile(namespace)
                    try await self.install(program, for: namespace, file: state, origin: .load)
                case .failure(let diagnostics):
                    // Only compiled documents are published: this is another version's compiler.
                    throw DatabaseError.invalidRules(
                        "The cluster's rules of namespace '\(namespace)' do not compile here:\n\(diagnostics)"
                    )
                }
                return
            }
            let program = try await self.loadNow(namespace, strict: namespace == "default")
            let accepted = self.watch.withLock { $0.fileStates[namespace]?.rejected } == nil
            if self.files.stamp(for: namespace) != nil, accepted {
                try await shared.publish(program.source.text, for: namespace, origin: Origin.load.rawValue)
            }
        }
    }

    // MARK: Replacing and reloading

    /// Compiles `text` and, when it compiles, rewrites the namespace's file (atomically) and
    /// installs it. A document with errors is refused and the old rules stay in force.
    /// - Throws: `DatabaseError` `.invalidRules` with every diagnostic rendered.
    public func replace(_ text: String, for namespace: String) async throws {
        _ = try await program(for: namespace)
        try await serial.run(namespace) { try await self.replaceNow(text, for: namespace) }
    }

    private func replaceNow(_ text: String, for namespace: String) async throws {
        let program: RuleProgram
        switch RulesDocument.compile(source: text, fileName: files.path(for: namespace)) {
        case .success(let compiled): program = compiled
        case .failure(let diagnostics): throw DatabaseError.invalidRules(diagnostics.description)
        }
        if let shared {
            // The cluster's rules change; no node's file does (files only seed a cluster).
            try await shared.publish(text, for: namespace, origin: Origin.put.rawValue)
            if loadedProgram(for: namespace)?.source.text == text { return }
            let state = watch.withLock { $0.fileStates[namespace] } ?? FileState(stamp: nil, racy: false)
            try await install(program, for: namespace, file: state, origin: .put)
            return
        }
        try files.write(text, for: namespace)
        let readAt = RulesFileStamp.Timestamp.now()
        let stamp = files.stamp(for: namespace)
        let state = FileState(stamp: stamp, racy: stamp?.isRacy(readAt: readAt) ?? false, rejected: nil, text: text)
        if loadedProgram(for: namespace)?.source.text == text {
            record(state, for: namespace)
            logger.info("rules rewritten unchanged", metadata: ["hearth.ns": "\(namespace)"])
            return
        }
        try await install(program, for: namespace, file: state, origin: .put)
    }

    /// Reloads every loaded namespace whose file changed since it was read, from one look at
    /// the rules folder (`RulesFiles.stamps()`): the cost follows the rules files there, not the
    /// namespaces loaded. An edit that does not compile is logged once and ignored; a deleted
    /// file leaves the rules in force. In a cluster, an edit of a namespace not loaded here is
    /// published for its owner (`UnloadedRulesFiles`).
    public func poll() async {
        let present = files.stamps()
        let changed = watch.withLock { watch -> [String] in
            // A loaded namespace can have changed only if its file is there now, or was when read.
            var candidates = Set(present.keys.filter { watch.fileStates[$0] != nil })
            candidates.formUnion(watch.watchedWithoutListing)
            return candidates.sorted().filter { namespace in
                guard let state = watch.fileStates[namespace] else { return false }
                return state.racy || present[namespace] != state.stamp
            }
        }
        for namespace in changed where !serial.isBusy(namespace) {
            _ = try? await serial.run(namespace) { await self.reload(namespace) }
        }
        if let unloadedFiles {
            await unloadedFiles.poll(present) { namespace in self.watch.withLock { $0.fileStates[namespace] != nil } }
        }
    }

    private func reload(_ namespace: String) async {
        guard let previous = watch.withLock({ $0.fileStates[namespace] }),
            let current = loadedProgram(for: namespace)
        else { return }
        var (content, state) = readFile(namespace)
        state.rejected = previous.rejected
        switch content {
        case .missing:
            if previous.stamp != nil {
                logger.warning(
                    "rules file deleted; keeping the rules in force",
                    metadata: ["hearth.ns": "\(namespace)", "hearth.rules.file": "\(files.path(for: namespace))"]
                )
            }
            state.rejected = nil
        case .unreadable(let reason):
            if reason != previous.rejected {
                logUnreadable(namespace, reason: reason, keeping: "the rules in force")
            }
            state.rejected = reason
        case .text(let text) where text == current.source.text:
            state.rejected = nil
        case .text(let text) where text == previous.rejected || text == previous.text:
            // Not an edit: read again while the stamp was racy, or (in a cluster) the file
            // the node started with while another node's rules are in force.
            break
        case .text(let text):
            switch RulesDocument.compile(source: text, fileName: files.path(for: namespace)) {
            case .failure(let diagnostics):
                logRefused(namespace, diagnostics: diagnostics, keeping: "the rules in force")
                state.rejected = text
            case .success(let program):
                state.rejected = nil
                do {
                    try await shared?.publish(text, for: namespace, origin: Origin.file.rawValue)
                    try await install(program, for: namespace, file: state, origin: .file)
                    return
                } catch {
                    logger.error(
                        "rules could not be applied; keeping the rules in force",
                        metadata: ["hearth.ns": "\(namespace)", "hearth.error": "\(error)"]
                    )
                    // In a cluster the publish failed: the next poll tries again.
                    if shared != nil { return }
                }
            }
        }
        record(state, for: namespace)
    }

    // MARK: Installing

    private func install(_ program: RuleProgram, for namespace: String, file: FileState, origin: Origin) async throws {
        try await store.namespace(namespace).setIndexes(program.indexes)
        record(file, for: namespace)
        rules(for: namespace).install(program)
        recordVersion(program, for: namespace, origin: origin)
        logger.info(
            "rules installed",
            metadata: [
                "hearth.ns": "\(namespace)", "hearth.rules.origin": "\(origin.rawValue)",
                "hearth.rules.file": "\(files.path(for: namespace))", "hearth.indexes": "\(program.indexes.count)",
            ]
        )
        for observer in observers.withLock({ $0 }) { observer(namespace, program) }
    }

    /// Keeps the document in the namespace's rules history (`Store.recordRules`): every put and
    /// file edit, and a load of `default` or of a namespace that exists (a namespace only asked
    /// about by a refused request leaves nothing on disk). A failure is logged; the rules stay in force.
    private func recordVersion(_ program: RuleProgram, for namespace: String, origin: Origin) {
        do {
            if origin == .load, namespace != "default", try !store.isCreated(namespace) { return }
            let now = Date().timeIntervalSince1970 * 1000
            try store.recordRules(program.source.text, for: namespace, origin: origin.rawValue, at: now.rounded())
        } catch {
            logger.error(
                "could not record the rules in their history",
                metadata: ["hearth.ns": "\(namespace)", "hearth.error": "\(error)"]
            )
        }
    }

    private func record(_ state: FileState, for namespace: String) {
        watch.withLock { watch in
            watch.fileStates[namespace] = state
            if state.stamp != nil || state.racy {
                watch.watchedWithoutListing.insert(namespace)
            } else {
                watch.watchedWithoutListing.remove(namespace)
            }
        }
    }

    private func readFile(_ namespace: String) -> (FileContent, FileState) {
        Self.readFile(namespace, in: files)
    }

    /// The file's content, with its stamp taken before reading (a change while reading shows
    /// up as a new stamp on the next poll).
    static func readFile(_ namespace: String, in files: RulesFiles) -> (FileContent, FileState) {
        let readAt = RulesFileStamp.Timestamp.now()
        guard let stamp = files.stamp(for: namespace) else { return (.missing, FileState(stamp: nil, racy: false)) }
        var state = FileState(stamp: stamp, racy: stamp.isRacy(readAt: readAt))
        do {
            guard let text = try files.read(for: namespace) else { return (.missing, state) }
            state.text = text
            return (.text(text), state)
        } catch let error as DatabaseError {
            return (.unreadable(error.message), state)
        } catch {
            return (.unreadable("Cannot read the rules file '\(files.path(for: namespace))': \(error)."), state)
        }
    }

    private func defaultProgram(for namespace: String) -> RuleProgram {
        switch RulesDocument.compile(source: RulesFiles.defaultDocument, fileName: files.path(for: namespace)) {
        case .success(let program): return program
        case .failure(let diagnostics): preconditionFailure("The default rules do not compile: \(diagnostics)")
        }
    }

    // MARK: Logging

    private func logRefused(_ namespace: String, diagnostics: RulesDiagnostics, keeping: String) {
        let file = files.path(for: namespace)
        Self.logRefused(namespace, file: file, diagnostics: diagnostics, keeping: keeping, logger: logger)
    }

    /// One log line: the diagnostics rendered, their line breaks escaped.
    static func logRefused(
        _ namespace: String,
        file: String,
        diagnostics: RulesDiagnostics,
        keeping: String,
        logger: Logger
    ) {
        let rendered = diagnostics.description.split(separator: "\n", omittingEmptySubsequences: false)
        logger.error(
            "rules file has errors; using \(keeping)",
            metadata: [
                "hearth.ns": "\(namespace)", "hearth.rules.file": "\(file)",
                "hearth.rules.errors": "\(diagnostics.diagnostics.count)",
                "hearth.rules.diagnostics": "\(rendered.joined(separator: "\\n"))",
            ]
        )
    }

    private func logUnreadable(_ namespace: String, reason: String, keeping: String) {
        logger.error(
            "rules file unreadable; using \(keeping)",
            metadata: ["hearth.ns": "\(namespace)", "hearth.error": "\(reason)"]
        )
    }
}
