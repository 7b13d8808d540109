import HearthCore
import Testing

@testable import HearthStore

/// Random writes applied to the store and to `ReferenceModel`; after each, the stored tree, its
/// JSON and every indexed query must agree with the model.
@Suite struct ModelCheckTests {
    static let keyPool = ["a", "b", "1", "2", "10", "x y", "é", "\u{1F600}", "-3", "01"]

    struct Generator {
        var random: SeededRandom

        mutating func key() -> ChildKey {
            ChildKey(ModelCheckTests.keyPool.randomElement(using: &random)!)
        }

        mutating func path(maxDepth: Int) -> [ChildKey] {
            (0..<Int.random(in: 1...maxDepth, using: &random)).map { _ in key() }
        }

        mutating func leaf() -> LeafValue {
            switch Int.random(in: 0..<4, using: &random) {
            case 0: return .bool(Bool.random(using: &random))
            case 1: return .number(Double(Int.random(in: -3...3, using: &random)))
            case 2: return .number(Double.random(in: -10...10, using: &random))
            default: return .string(["", "a", "b", "ab", "\u{1F600}", "\u{FF61}"].randomElement(using: &random)!)
            }
        }

        mutating func priority() -> Priority? {
            switch Int.random(in: 0..<4, using: &random) {
            case 0: return .number(Double(Int.random(in: 0...3, using: &random)))
            case 1: return .string(["p", "q"].randomElement(using: &random)!)
            default: return nil
            }
        }

        mutating func node(depth: Int) -> Node? {
            if depth == 0 || Int.random(in: 0..<3, using: &random) == 0 {
                if Int.random(in: 0..<6, using: &random) == 0 { return nil }
                return .leaf(leaf(), priority: priority())
            }
            let pairs = (0..<Int.random(in: 1...3, using: &random)).compactMap { _ -> (ChildKey, Node)? in
                let k = key()
                return node(depth: depth - 1).map { (k, $0) }
            }
            if pairs.isEmpty { return nil }
            return .children(Children(unsorted: pairs), priority: priority())
        }

        /// A random set, update, priority write or delete, applied to `model` too; with a
        /// description for failure messages.
        mutating func operation(applyingTo model: inout Node?) -> (write: Write, description: String) {
            let write: Write
            let lastOp: String
            switch Int.random(in: 0..<10, using: &random) {
            case 0..<5:
                let where_ = self.path(maxDepth: 4)
                let node = self.node(depth: 3)
                write = Write(.set(DataPath(keys: where_), ModelCheckTests.newValue(node)))
                model = ReferenceModel.set(model, where_[...], node)
                lastOp =
                    "set \(DataPath(keys: where_)) \(String(decoding: JSONRenderer.render(node, format: .export), as: UTF8.self))"
            case 5..<8:
                let base = self.path(maxDepth: 2)
                var seen: [[ChildKey]] = []
                var entries: [UpdateEntry] = []
                for _ in 0..<Int.random(in: 1...4, using: &random) {
                    let relative = self.path(maxDepth: 2)
                    if seen.contains(where: { $0.starts(with: relative) || relative.starts(with: $0) }) { continue }
                    seen.append(relative)
                    let node = self.node(depth: 2)
                    entries.append(UpdateEntry(path: DataPath(keys: relative), value: ModelCheckTests.newValue(node)))
                    model = ReferenceModel.set(model, (base + relative)[...], node)
                }
                write = Write(.update(DataPath(keys: base), entries))
                lastOp =
                    "update \(DataPath(keys: base)) "
                    + entries.map {
                        "\($0.path)=\(String(decoding: JSONRenderer.render($0.value.node, format: .export), as: UTF8.self))"
                    }.joined(separator: " ")
            case 8:
                let where_ = self.path(maxDepth: 3)
                let priority = self.priority()
                let leaf: Node? = priority.map {
                    switch $0 {
                    case .number(let d): return .leaf(.number(d), priority: nil)
                    case .string(let s): return .leaf(.string(s), priority: nil)
                    }
                }
                write = Write(.set(DataPath(keys: where_ + [ChildKey(".priority")]), ModelCheckTests.newValue(leaf)))
                model = ReferenceModel.setPriority(model, where_[...], priority)
                lastOp = "priority \(DataPath(keys: where_)) \(String(describing: priority))"
            default:
                let where_ = self.path(maxDepth: 2)
                write = Write(.set(DataPath(keys: where_), .null))
                model = ReferenceModel.set(model, where_[...], nil)
                lastOp = "delete \(DataPath(keys: where_))"
            }
            return (write, lastOp)
        }
    }

    static func newValue(_ node: Node?) -> NewValue { NewValue(node: node) }

    /// The namespace the model checks write to, with the indexes `checkQueries` queries.
    static func indexedNamespace(_ temp: TemporaryStore) async throws -> NamespaceStore {
        let ns = try temp.store.namespace("default")
        let listSpec = IndexSpec(
            location: [.key(ChildKey("a")), .wildcard("$w")],
            indexed: .child(DataPath(keys: [ChildKey("b")]))
        )
        let valueSpec = IndexSpec(location: [.key(ChildKey("b"))], indexed: .value)
        try await ns.setIndexes([listSpec, valueSpec])
        return ns
    }

    /// Each seed with every list keeping entries from its first query on (limit 0), and with
    /// lists of up to 3 children ordered when read.
    @Test(arguments: [1, 2, 3, 4], [0, 3])
    func storeAgreesWithTheReferenceModel(seed: UInt64, smallListLimit: Int) async throws {
        let temp = try TemporaryStore(smallListLimit: smallListLimit)
        defer { temp.destroy() }
        let ns = try await Self.indexedNamespace(temp)
        var generator = Generator(random: SeededRandom(state: seed))
        var model: Node? = nil
        for step in 0..<150 {
            let (write, lastOp) = generator.operation(applyingTo: &model)
            _ = try await ns.write(write)
            guard try await agrees(ns, with: model, step: step, after: lastOp, random: &generator.random) else {
                return
            }
        }
    }

    /// The same random writes, issued in bursts of 1–8 that the writer takes as one round, so
    /// that writes are staged together (and overlapping ones are not): the result must be as
    /// if they ran one by one, in order.
    @Test(arguments: [5, 6, 7, 8], [0, 3])
    func writesSharingARoundAgreeWithTheReferenceModel(seed: UInt64, smallListLimit: Int) async throws {
        let temp = try TemporaryStore(smallListLimit: smallListLimit)
        defer { temp.destroy() }
        let ns = try await Self.indexedNamespace(temp)
        var generator = Generator(random: SeededRandom(state: seed))
        var model: Node? = nil
        for step in 0..<60 {
            var writes: [Write] = []
            var described: [String] = []
            for _ in 0..<Int.random(in: 1...8, using: &generator.random) {
                let (write, description) = generator.operation(applyingTo: &model)
                writes.append(write)
                described.append(description)
            }
            let results = try await ns.writeInOneRound(writes)
            for result in results { _ = try result.get() }
            guard
                try await agrees(
                    ns,
                    with: model,
                    step: step,
                    after: described.joined(separator: "; "),
                    random: &generator.random
                )
            else { return }
        }
        #expect(temp.probe.groupsApplied > 0, "no round staged its writes")
    }

    /// Compares the stored tree, its JSON and the indexed queries with the model.
    func agrees(
        _ ns: NamespaceStore,
        with model: Node?,
        step: Int,
        after lastOp: String,
        random: inout SeededRandom
    ) async throws -> Bool {
        let stored = try await ns.node("")
        let storedText = String(decoding: JSONRenderer.render(stored, format: .export), as: UTF8.self)
        let modelText = String(decoding: JSONRenderer.render(model, format: .export), as: UTF8.self)
        #expect(storedText == modelText, "step \(step) \(lastOp): \(Self.difference(stored, model, at: []))")
        if stored != model { return false }
        let plain = String(decoding: JSONRenderer.render(model, format: .plain), as: UTF8.self)
        let rendered = try await ns.json("", format: .plain)
        #expect(rendered == plain, "step \(step)")
        if rendered != plain { return false }
        // Export puts `.priority` first where Core's renderer puts it last: compare as trees.
        let exported = try await ns.json("", format: .export)
        #expect(try TreeParser.parse(Array(exported.utf8), at: .root).node == model, "step \(step) \(exported)")
        // Every index entry, not only the ones the queries reach: exactly the data's.
        let disagreements = try await ns.indexDisagreements()
        #expect(disagreements.isEmpty, "step \(step) \(lastOp): \(disagreements)")
        if !disagreements.isEmpty { return false }
        return try await checkQueries(ns, model: model, step: step, random: &random)
    }

    static func difference(_ a: Node?, _ b: Node?, at path: [ChildKey]) -> String {
        if a == b { return "" }
        if case .children(let x, let px)? = a, case .children(let y, let py)? = b {
            if px != py {
                return "\(DataPath(keys: path)) priority \(String(describing: px)) vs \(String(describing: py))"
            }
            for key in Set(x.keys).union(y.keys) {
                let d = difference(x[key], y[key], at: path + [key])
                if !d.isEmpty { return d }
            }
        }
        let render = { (n: Node?) in String(decoding: JSONRenderer.render(n, format: .export), as: UTF8.self) }
        return "\(DataPath(keys: path)): stored \(render(a)) vs model \(render(b))"
    }

    func checkQueries(_ ns: NamespaceStore, model: Node?, step: Int, random: inout SeededRandom) async throws -> Bool {
        var locations: [(DataPath, QueryOrder)] = [(DataPath(keys: [ChildKey("b")]), .value)]
        if case .children(let lists, _)? = model?.child(ChildKey("a")) {
            for key in lists.keys {
                locations.append((DataPath(keys: [ChildKey("a"), key]), .child(DataPath(keys: [ChildKey("b")]))))
            }
        }
        for (location, order) in locations {
            let bounds: [LeafValue?] = [
                nil, .bool(false), .bool(true), .number(0), .number(2), .string("a"), .string("b"),
            ]
            var query = Query(order: order)
            if Bool.random(using: &random) {
                query.start = QueryBound(
                    value: bounds.randomElement(using: &random)!,
                    key: Bool.random(using: &random) ? ChildKey(Self.keyPool.randomElement(using: &random)!) : nil
                )
                query.startIsExclusive = Bool.random(using: &random)
            }
            if Bool.random(using: &random) {
                query.end = QueryBound(
                    value: bounds.randomElement(using: &random)!,
                    key: Bool.random(using: &random) ? ChildKey(Self.keyPool.randomElement(using: &random)!) : nil
                )
                query.endIsExclusive = Bool.random(using: &random)
            }
            switch Int.random(in: 0..<3, using: &random) {
            case 0: query.limit = .first(Int.random(in: 1...3, using: &random))
            case 1: query.limit = .last(Int.random(in: 1...3, using: &random))
            default: break
            }
            let finalQuery = query
            let stored = try await ns.read { try $0.query(at: location, finalQuery) }
            var expected: [(key: ChildKey, node: Node)] = []
            if case .children(let children, _)? = model?.descendant(location) {
                expected = QueryEvaluator.apply(query, to: children)
            }
            #expect(stored.map(\.key) == expected.map(\.key), "step \(step) \(location) \(query)")
            #expect(stored.map(\.node) == expected.map(\.node), "step \(step) \(location)")
            if stored.map(\.key) != expected.map(\.key) { return false }
        }
        return true
    }

    @Test func indexesBuiltOverExistingDataAnswerQueries() async throws {
        let temp = try TemporaryStore()
        defer { temp.destroy() }
        let ns = try temp.store.namespace("default")
        try await ns.set(
            "scores",
            #"{"a":{"s":3},"b":{"s":1},"c":{"s":"x"},"d":{"t":1},"e":{"s":{"o":1}},"f":{"s":2}}"#
        )
        let query = Query(order: .child(DataPath(keys: [ChildKey("s")])), limit: .last(3))
        await #expect(throws: StoreError.self) { try await ns.read { try $0.query(at: path("scores"), query) } }
        do {
            _ = try await ns.read { try $0.query(at: path("scores"), query) }
        } catch let error as StoreError {
            #expect(error.message == #"Index not defined, add ".indexOn": "s", for path "/scores", to the rules"#)
        }
        try await ns.setIndexes([
            IndexSpec(location: [.key(ChildKey("scores"))], indexed: .child(DataPath(keys: [ChildKey("s")])))
        ])
        let keys = try await ns.read { try $0.query(at: path("scores"), query).map(\.key.string) }
        #expect(keys == ["a", "c", "e"])
        let all = try await ns.read {
            try $0.query(at: path("scores"), Query(order: .child(path("s")))).map(\.key.string)
        }
        #expect(all == ["d", "b", "f", "a", "c", "e"])
        // The index persists and stays current across reopening.
        try temp.reopen()
        let reopened = try temp.store.namespace("default")
        try await reopened.set("scores/g", #"{"s":100}"#)
        let last = try await reopened.read {
            try $0.query(at: path("scores"), Query(order: .child(path("s")), limit: .last(1))).map(\.key.string)
        }
        // Strings and objects sort after numbers.
        #expect(last == ["e"])
        let numbers = try await reopened.read {
            try $0.query(
                at: path("scores"),
                Query(order: .child(path("s")), end: QueryBound(value: .number(1e9)), limit: .last(1))
            ).map(\.key.string)
        }
        #expect(numbers == ["g"])
    }
}
