import Foundation
import HearthCore
import HearthProtocol
import HearthStore
import HearthTestSupport
import Logging
import Synchronization
import Testing

@testable import HearthDatabase

/// A store in a fresh temporary directory with a realtime database over it; `destroy()` removes it.
final class TestDatabase: Sendable {
    let directory: String
    let store: Store
    let database: Database

    /// - Parameter directory: an existing data directory to open again; default: a new one.
    init(directory: String? = nil, clock: @escaping @Sendable () -> Double = { 1_700_000_000_000 }) throws {
        self.directory = try directory ?? TemporaryDirectory(prefix: "hearth-db").path
        store = try Store.open(directory: self.directory, clock: clock)
        database = Database(
            store: store,
            rulesFiles: RulesFiles(defaultRulesFile: self.directory + "/rules/database.rules.json"),
            logger: Logger(label: "test")
        )
    }

    func engine(_ name: String = "default") throws -> NamespaceEngine {
        try database.namespace(name)
    }

    func destroy() {
        store.close()
        try? FileManager.default.removeItem(atPath: directory)
    }
}

/// Runs `body` with a fresh database, removed afterwards.
func withDatabase<T>(_ body: (TestDatabase, NamespaceEngine) async throws -> T) async throws -> T {
    let db = try TestDatabase()
    defer { db.destroy() }
    return try await body(db, try db.engine())
}

func path(_ text: String) -> DataPath {
    DataPath(keys: text.split(separator: "/").map { ChildKey(String($0)) })
}

func value(_ json: String) -> NewValue {
    try! TreeParser.parse(Array(json.utf8), at: .root)
}

func tree(_ json: String) -> Node? {
    value(json).node
}

func text(_ node: Node?) -> String {
    JSONRenderer.renderString(node, format: .export)
}

extension NamespaceEngine {
    @discardableResult
    func set(_ where_: String, _ json: String) async throws -> WriteResult {
        try await write(Write(.set(path(where_), value(json))), as: .admin)
    }

    @discardableResult
    func update(_ where_: String, _ entries: [(String, String)]) async throws -> WriteResult {
        try await write(
            Write(.update(path(where_), entries.map { UpdateEntry(path: path($0.0), value: value($0.1)) })),
            as: .admin
        )
    }
}

/// Collects what the engine delivers, and keeps a client-side view per registration.
final class FakeSubscriber: ListenSubscriber {
    struct Delivery {
        let update: EncodedUpdate
        let registration: ListenRegistration
    }

    private let state = Mutex<[Delivery]>([])
    private let revokedState = Mutex<[ListenRegistration]>([])

    func deliver(_ update: EncodedUpdate, for registration: ListenRegistration) {
        state.withLock { $0.append(Delivery(update: update, registration: registration)) }
    }

    func revoked(_ registration: ListenRegistration) {
        revokedState.withLock { $0.append(registration) }
    }

    /// The registrations the engine revoked, in order.
    var revocations: [ListenRegistration] { revokedState.withLock { $0 } }

    var deliveries: [Delivery] { state.withLock { $0 } }

    /// The pushes as `d path json` / `m path {..}` lines (export format), in delivery order.
    var lines: [String] {
        deliveries.map { Self.line($0.update) }
    }

    static func line(_ update: EncodedUpdate) -> String {
        let p = update.path.keys.map(\.string).joined(separator: "/")
        return (update.isMerge ? "m " : "d ") + p + " " + String(decoding: update.dataJSON, as: UTF8.self)
    }

    func clear() { state.withLock { $0 = [] } }

    func deliveries(for registration: ListenRegistration) -> [EncodedUpdate] {
        deliveries.filter { $0.registration == registration }.map(\.update)
    }
}

/// What a client shows for one listen: the initial data with every push applied, as the SDK
/// applies them (a `d` replaces the node at its path, an `m` each child path).
struct ClientView {
    let listenPath: DataPath
    var node: Node?

    init(_ start: ListenStart) {
        listenPath = start.registration.path
        node = start.data
    }

    mutating func apply(_ update: EncodedUpdate) {
        guard let relative = listenPath.relative(update.path) else {
            Issue.record("push at \(update.path) outside the listen at \(listenPath)")
            return
        }
        switch update.change {
        case .set(let value):
            node = ClientView.setting(node, at: relative, to: value)
        case .merge(let children):
            for child in children {
                node = ClientView.setting(node, at: relative.appending(child.path), to: child.node)
            }
        }
    }

    static func setting(_ node: Node?, at path: DataPath, to value: Node?) -> Node? {
        guard let key = path.keys.first else { return value }
        let rest = DataPath(keys: Array(path.keys.dropFirst()))
        var children = Children()
        var priority: Priority?
        switch node {
        case .children(let existing, let p)?: (children, priority) = (existing, p)
        case .leaf(_, let p)?: priority = p
        case nil: break
        }
        children[key] = setting(children[key], at: rest, to: value)
        return children.isEmpty ? nil : .children(children, priority: priority)
    }
}
