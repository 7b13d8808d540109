import Foundation
import HearthCore
import HearthTestSupport
import Testing

@testable import HearthStore

/// Bursts of writes concentrated on a few hot locations (increments, sets of leaves and small
/// objects, multi-path updates, and now and then a write above, below or beside them, a delete
/// or a priority), each burst taken by the writer as one round: the store must agree with
/// `ReferenceModel` as if the writes ran one by one, whatever the writer staged from memory.
@Suite struct HotModelCheckTests {
    static let hot = ["h/a", "h/b", "h/c/d", "h/c/e", "h/f"].map(path)
    static let around = ["h", "h/c", "h/a/x", "h/c/d/y", "h/g"].map(path)

    /// Indexes over the hot locations: `h`'s children by their `d` (so writes to `h/c/d` and
    /// `h/c/e` both re-derive `h/c`'s entry), and `h/c`'s children by value.
    static let indexes: [(location: DataPath, order: QueryOrder, spec: IndexSpec)] = [
        (path("h"), .child(path("d")), IndexSpec(location: [.key(ChildKey("h"))], indexed: .child(path("d")))),
        (path("h/c"), .value, IndexSpec(location: [.key(ChildKey("h")), .key(ChildKey("c"))], indexed: .value)),
    ]

    struct Generator {
        var random: SeededRandom

        mutating func leaf() -> Node {
            switch Int.random(in: 0..<3, using: &random) {
            case 0: return .leaf(.number(Double(Int.random(in: -2...5, using: &random))), priority: nil)
            case 1: return .leaf(.string(["s", "t"].randomElement(using: &random)!), priority: nil)
            default: return .leaf(.bool(Bool.random(using: &random)), priority: nil)
            }
        }

        mutating func small() -> Node {
            Node.children(Children(unsorted: [(ChildKey("n"), leaf()), (ChildKey("m"), leaf())]), priority: nil)
        }

        /// One entry: a new value for `path` (an increment, a leaf or a small object), applied
        /// to `model` as the writer resolves it against `base`, the state before the write.
        mutating func entry(at path: DataPath, base: Node?, model: inout Node?) -> (NewValue, String) {
            switch Int.random(in: 0..<10, using: &random) {
            case 0..<5:
                let existing = base?.descendant(path)
                var sum = 1.0
                if case .leaf(.number(let n), _)? = existing { sum = n + 1 }
                model = ReferenceModel.set(model, path.keys[...], .leaf(.number(sum), priority: nil))
                let parsed = try! TreeParser.parse(Array(#"{".sv":{"increment":1}}"#.utf8), at: .root)
                return (parsed, "\(path)+=1")
            case 5..<8:
                let node = leaf()
                model = ReferenceModel.set(model, path.keys[...], node)
                return (NewValue(node: node), "\(path)=\(render(node))")
            default:
                let node = small()
                model = ReferenceModel.set(model, path.keys[...], node)
                return (NewValue(node: node), "\(path)=\(render(node))")
            }
        }

        /// A write: mostly a multi-path update of hot locations, sometimes a set at one, and now
        /// and then a write around them.
        mutating func operation(applyingTo model: inout Node?) -> (Write, String) {
            let base = model
            switch Int.random(in: 0..<20, using: &random) {
            case 0..<12:
                // No hot location contains another.
                let chosen = HotModelCheckTests.hot.shuffled(using: &random).prefix(
                    Int.random(in: 1...4, using: &random)
                )
                var entries: [UpdateEntry] = []
                var described: [String] = []
                for location in chosen {
                    let (value, text) = entry(at: location, base: base, model: &model)
                    entries.append(UpdateEntry(path: location, value: value))
                    described.append(text)
                }
                return (Write(.update(.root, entries)), "update " + described.joined(separator: " "))
            case 12..<16:
                let location = HotModelCheckTests.hot.randomElement(using: &random)!
                let (value, text) = entry(at: location, base: base, model: &model)
                return (Write(.set(location, value)), "set " + text)
            case 16..<18:
                let location = HotModelCheckTests.around.randomElement(using: &random)!
                let (value, text) = entry(at: location, base: base, model: &model)
                return (Write(.set(location, value)), "set around " + text)
            case 18:
                let location = (HotModelCheckTests.hot + HotModelCheckTests.around).randomElement(using: &random)!
                model = ReferenceModel.set(model, location.keys[...], nil)
                return (Write(.set(location, .null)), "delete \(location)")
            default:
                let location = HotModelCheckTests.hot.randomElement(using: &random)!
                let priority = Priority.number(Double(Int.random(in: 0...3, using: &random)))
                model = ReferenceModel.setPriority(model, location.keys[...], priority)
                guard case .number(let d) = priority else { preconditionFailure() }
                let write = Write(
                    .set(location.child(ChildKey(".priority")), NewValue(node: .leaf(.number(d), priority: nil)))
                )
                return (write, "priority \(location) \(d)")
            }
        }

        func render(_ node: Node?) -> String {
            String(decoding: JSONRenderer.render(node, format: .export), as: UTF8.self)
        }
    }

    @Test(arguments: [11, 12, 13, 14, 15, 16], [0, 2])
    func hotWritesSharingARoundAgreeWithTheReferenceModel(seed: UInt64, smallListLimit: Int) async throws {
        let temp = try TemporaryStore(smallListLimit: smallListLimit)
        defer { temp.destroy() }
        let ns = try temp.store.namespace("default")
        try await ns.setIndexes(Self.indexes.map(\.spec))
        var generator = Generator(random: SeededRandom(state: seed))
        var model: Node? = nil
        for step in 0..<80 {
            var writes: [Write] = []
            var described: [String] = []
            for _ in 0..<Int.random(in: 1...8, using: &generator.random) {
                let (write, description) = generator.operation(applyingTo: &model)
                writes.append(write)
                described.append(description)
            }
            for result in try await ns.writeInOneRound(writes) { _ = try result.get() }
            let stored = try await ns.node("")
            #expect(
                stored == model,
                "step \(step) \(described.joined(separator: "; ")): \(ModelCheckTests.difference(stored, model, at: []))"
            )
            if stored != model { return }
            for (location, order) in Self.indexes.map({ ($0.location, $0.order) }) {
                let query = Query(order: order)
                let ordered = try await ns.read { try $0.query(at: location, query) }
                var expected: [(key: ChildKey, node: Node)] = []
                if case .children(let children, _)? = model?.descendant(location) {
                    expected = QueryEvaluator.apply(query, to: children)
                }
                #expect(ordered.map(\.key) == expected.map(\.key), "step \(step) \(location) ordered by \(order)")
                if ordered.map(\.key) != expected.map(\.key) { return }
            }
            // Every index entry, not only the ones the queries reach: exactly the data's.
            let disagreements = try await ns.indexDisagreements()
            #expect(disagreements.isEmpty, "step \(step) \(described.joined(separator: "; ")): \(disagreements)")
            if !disagreements.isEmpty { return }
        }
        #expect(temp.probe.groupsApplied > 0, "no round staged its writes")
    }

    /// The same hot bursts, and every tenth step the store as `kill -9` would leave it (its
    /// files copied while it is open, the writer idle: the log as written, nothing closed),
    /// opened on its own: the tree is the model's and every index entry exactly the data's.
    @Test(arguments: [21, 22], [0, 2])
    func indexesEqualTheDataInAStoreLeftAsACrashLeavesIt(seed: UInt64, smallListLimit: Int) async throws {
        let temp = try TemporaryStore(smallListLimit: smallListLimit)
        defer { temp.destroy() }
        let ns = try temp.store.namespace("default")
        try await ns.setIndexes(Self.indexes.map(\.spec))
        var generator = Generator(random: SeededRandom(state: seed))
        var model: Node? = nil
        for step in 1...40 {
            var writes: [Write] = []
            for _ in 0..<Int.random(in: 1...8, using: &generator.random) {
                writes.append(generator.operation(applyingTo: &model).0)
            }
            for result in try await ns.writeInOneRound(writes) { _ = try result.get() }
            guard step % 10 == 0 else { continue }
            let copy = try TemporaryDirectory(prefix: "hearth-crash").path
            defer { try? FileManager.default.removeItem(atPath: copy) }
            // LevelDB's background compaction may delete a file while it is copied: copy again.
            try await eventually(timeout: .seconds(10), interval: .milliseconds(10)) {
                try? FileManager.default.removeItem(atPath: copy)
                return (try? FileManager.default.copyItem(atPath: temp.directory, toPath: copy)) != nil
            }
            let crashed = try Store.open(directory: copy)
            defer { crashed.close() }
            let reopened = try crashed.namespace("default")
            #expect(try await reopened.node("") == model, "step \(step)")
            #expect(try await reopened.indexDisagreements().isEmpty, "step \(step)")
        }
    }
}
