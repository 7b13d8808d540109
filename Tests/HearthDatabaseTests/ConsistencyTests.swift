import HearthCore
import HearthProtocol
import HearthStore
import Testing

@testable import HearthDatabase

@Suite struct ConsistencyTests {
    static func number(_ node: Node?) -> Int? {
        if case .leaf(.number(let n), _)? = node { return Int(n) }
        return nil
    }

    /// Listens registered while a writer keeps counting see every later value exactly once.
    @Test func noCommitMissedOrRepeatedAroundTheInitialRead() async throws {
        try await withDatabase { _, engine in
            try await engine.set("c/n", "0")
            let total = 300
            let writer = Task {
                for i in 1...total { try await engine.set("c/n", "\(i)") }
            }
            var listens: [(start: ListenStart, subscriber: FakeSubscriber)] = []
            for k in 0..<60 {
                let subscriber = FakeSubscriber()
                let where_ = ["c", "c/n", ""][k % 3]
                listens.append(
                    (
                        try await engine.listen(path: path(where_), query: nil, subscriber: subscriber, as: .admin),
                        subscriber
                    )
                )
                if k % 4 == 0 { await Task.yield() }
            }
            try await writer.value
            await engine.waitForDeliveries()
            var sawConcurrentStart = false
            for (start, subscriber) in listens {
                let initial = Self.number(start.data?.descendant(start.registration.path.relative(path("c/n"))!)) ?? 0
                if initial > 0 && initial < total { sawConcurrentStart = true }
                let values = subscriber.deliveries.map { delivery -> Int? in
                    guard case .set(let node) = delivery.update.change else { return nil }
                    return Self.number(node?.descendant(delivery.update.path.relative(path("c/n")) ?? .root))
                }
                #expect(
                    values == (initial < total ? Array((initial + 1)...total) : []),
                    "listen at \(start.registration.path) from \(initial)"
                )
            }
            #expect(sawConcurrentStart)
        }
    }

    /// Query and default listens registered during concurrent pushes end equal to the data.
    @Test func concurrentListensConvergeForQueries() async throws {
        try await withDatabase { _, engine in
            let writers = (0..<3).map { w in
                Task {
                    for i in 0..<80 {
                        try await engine.set("l/k\(w)_\(i)", #"{"s":\#((i * 7 + w) % 13)}"#)
                        if i % 5 == 0 { try await engine.set("l/k\(w)_\(i / 2)", "null") }
                    }
                }
            }
            let queries: [Query?] = [
                nil, Query(order: .key, limit: .last(3)), Query(order: .child(path("s")), limit: .first(4)),
                Query(
                    order: .child(path("s")),
                    start: QueryBound(value: .number(3)),
                    end: QueryBound(value: .number(8))
                ),
            ]
            var listens: [(start: ListenStart, subscriber: FakeSubscriber)] = []
            for k in 0..<40 {
                let subscriber = FakeSubscriber()
                listens.append(
                    (
                        try await engine.listen(
                            path: path("l"),
                            query: queries[k % queries.count],
                            subscriber: subscriber,
                            as: .admin
                        ), subscriber
                    )
                )
                await Task.yield()
            }
            for writer in writers { try await writer.value }
            await engine.waitForDeliveries()
            let node = try await engine.get(path: path("l"), query: nil, as: .admin)
            for (start, subscriber) in listens {
                var view = ClientView(start)
                for delivery in subscriber.deliveries { view.apply(delivery.update) }
                #expect(view.node == QueryModel.expected(node, start.registration.query), "\(start.registration)")
            }
        }
    }
}

enum QueryModel {
    /// The query's result over `node`, computed with `QueryEvaluator` alone.
    static func expected(_ node: Node?, _ query: Query?) -> Node? {
        guard let query else { return node }
        guard case .children(let children, _)? = node else { return nil }
        let selected = QueryEvaluator.apply(query, to: children)
        return selected.isEmpty ? nil : .children(Children(unsorted: selected.map { ($0.key, $0.node) }), priority: nil)
    }
}
