import HearthCore
import HearthStore

/// Runs a listen's query against a snapshot: through the store (indexes), or in memory with
/// `QueryEvaluator` when the ordered child or value has no index (Firebase then warns `no_index`).
enum QueryRunner {
    struct Outcome: Sendable {
        var sequence: UInt64
        var children: [(key: ChildKey, node: Node)]
        var unindexed: Bool

        /// The result as the listener sees it: the selected children, no priority at the top.
        var node: Node? { QueryRunner.node(children) }
    }

    static func run(_ reader: NamespaceReader, path: DataPath, query: Query) throws -> Outcome {
        let sequence = reader.sequence
        do {
            return Outcome(sequence: sequence, children: try reader.query(at: path, query), unindexed: false)
        } catch let error as StoreError where error.code == .indexNotDefined {
            guard case .children(let children, _)? = reader.node(at: path) else {
                return Outcome(sequence: sequence, children: [], unindexed: true)
            }
            return Outcome(sequence: sequence, children: QueryEvaluator.apply(query, to: children), unindexed: true)
        }
    }

    static func node(_ children: [(key: ChildKey, node: Node)]) -> Node? {
        children.isEmpty ? nil : .children(Children(unsorted: children.map { ($0.key, $0.node) }), priority: nil)
    }
}

/// What a query listener currently shows: the selected children's keys and value hashes.
struct QueryWindow: Sendable {
    var hashes: [ChildKey: Int]

    init(_ children: [(key: ChildKey, node: Node)]) {
        var hashes: [ChildKey: Int] = [:]
        hashes.reserveCapacity(children.count)
        for child in children { hashes[child.key] = child.node.hashValue }
        self.hashes = hashes
    }

    /// The merge that turns a client showing this window into one showing `children`: children
    /// that entered or changed with their values, children that left as null, in key order.
    func changes(to children: [(key: ChildKey, node: Node)]) -> [(key: ChildKey, node: Node?)] {
        var changes: [(key: ChildKey, node: Node?)] = []
        var kept = Set<ChildKey>()
        kept.reserveCapacity(children.count)
        for child in children {
            kept.insert(child.key)
            if hashes[child.key] != child.node.hashValue { changes.append((child.key, child.node)) }
        }
        for key in hashes.keys where !kept.contains(key) { changes.append((key, nil)) }
        changes.sort { ChildKey.compare($0.key, $1.key) < 0 }
        return changes
    }
}
