import HearthCore
import HearthProtocol
import HearthStore
import Synchronization
import Testing

@testable import HearthDatabase

@Suite struct DefaultListenTests {
    static let initial = #"{"a":{"b":{"c":1,"d":2},"e":3},"z":0}"#

    enum Change: Sendable {
        case set(String, String)
        case update(String, [(String, String)])
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let id: String
        let listen: String
        let change: Change
        let expected: [String]
        var testDescription: String { id }
    }

    static let cases: [Case] = [
        Case(id: "set below", listen: "a", change: .set("a/b/c", "5"), expected: ["d a/b/c 5"]),
        Case(id: "set at", listen: "a/b", change: .set("a/b", #"{"x":1}"#), expected: [#"d a/b {"x":1}"#]),
        Case(id: "set above", listen: "a/b", change: .set("a", #"{"b":{"q":1},"e":4}"#), expected: [#"d a/b {"q":1}"#]),
        Case(id: "delete above", listen: "a/b", change: .set("a", "null"), expected: ["d a/b null"]),
        Case(id: "delete below", listen: "a", change: .set("a/b/c", "null"), expected: ["d a/b/c null"]),
        Case(
            id: "set above without the listen's part",
            listen: "a/b",
            change: .set("a", #"{"e":4}"#),
            expected: ["d a/b null"]
        ),
        Case(
            id: "set at root",
            listen: "a/b/c",
            change: .set("", #"{"a":{"b":{"c":"r"}}}"#),
            expected: [#"d a/b/c "r""#]
        ),
        Case(id: "unrelated set", listen: "a/b", change: .set("z", "1"), expected: []),
        Case(id: "sibling set", listen: "a/b", change: .set("a/e", "9"), expected: []),
        Case(
            id: "update at the listen",
            listen: "a",
            change: .update("a", [("b/c", "7"), ("e", "null")]),
            expected: [#"m a {"b/c":7,"e":null}"#]
        ),
        Case(
            id: "update below the listen",
            listen: "",
            change: .update("a/b", [("c", "8")]),
            expected: [#"m a/b {"c":8}"#]
        ),
        Case(
            id: "update above, an entry covers the listen",
            listen: "a/b",
            change: .update("", [("a", #"{"b":{"n":1}}"#), ("z", "1")]),
            expected: [#"d a/b {"n":1}"#]
        ),
        Case(
            id: "update above, deep entry covers the listen",
            listen: "a/b/c",
            change: .update("", [("a/b", #"{"c":{"k":true}}"#)]),
            expected: [#"d a/b/c {"k":true}"#]
        ),
        Case(
            id: "update above, entries below the listen",
            listen: "a/b",
            change: .update("", [("a/b/c", "9"), ("a/b/d/x", "1"), ("z", "2")]),
            expected: [#"m a/b {"c":9,"d/x":1}"#]
        ),
        Case(
            id: "update above, unrelated entries",
            listen: "a/b",
            change: .update("", [("a/e", "1"), ("z", "2")]),
            expected: []
        ),
        Case(
            id: "priority of a child",
            listen: "a",
            change: .set("a/b/.priority", "5"),
            expected: [#"d a/b {"c":1,"d":2,".priority":5}"#]
        ),
        Case(id: "priority of an ancestor", listen: "a/b/c", change: .set("a/b/.priority", "5"), expected: []),
        Case(
            id: "priority of the listen",
            listen: "a/e",
            change: .set("a/e/.priority", #""p""#),
            expected: [#"d a/e {".value":3,".priority":"p"}"#]
        ),
        Case(
            id: "update with a priority entry",
            listen: "a",
            change: .update("a", [("b/.priority", "1"), ("e", "4")]),
            expected: [#"m a {"b":{"c":1,"d":2,".priority":1},"e":4}"#]
        ),
        Case(
            id: "update with the base's priority",
            listen: "a",
            change: .update("a", [(".priority", "1"), ("e", "4")]),
            expected: [#"d a {"b":{"c":1,"d":2},"e":4,".priority":1}"#]
        ),
    ]

    @Test(arguments: cases)
    func oneMessagePerCommit(_ item: Case) async throws {
        try await withDatabase { _, engine in
            try await engine.set("", Self.initial)
            let subscriber = FakeSubscriber()
            let start = try await engine.listen(path: path(item.listen), query: nil, subscriber: subscriber, as: .admin)
            switch item.change {
            case .set(let where_, let json): try await engine.set(where_, json)
            case .update(let where_, let entries): try await engine.update(where_, entries)
            }
            await engine.waitForDeliveries()
            #expect(subscriber.lines == item.expected)
            var view = ClientView(start)
            for delivery in subscriber.deliveries { view.apply(delivery.update) }
            let current = try await engine.get(path: path(item.listen), query: nil, as: .admin)
            #expect(view.node == current)
        }
    }

    @Test func multiPathUpdateIsOneMessageForEachListen() async throws {
        try await withDatabase { _, engine in
            try await engine.set("", Self.initial)
            let subscriber = FakeSubscriber()
            var starts: [ListenStart] = []
            for listen in ["", "a", "a/b", "a/b/c", "a/b/d", "z", "q"] {
                starts.append(
                    try await engine.listen(path: path(listen), query: nil, subscriber: subscriber, as: .admin)
                )
            }
            try await engine.update("", [("a/b/c", "10"), ("a/b/d", #"{"y":1}"#), ("z", "null"), ("a/e", "5")])
            await engine.waitForDeliveries()
            let counts = starts.map { subscriber.deliveries(for: $0.registration).count }
            #expect(counts == [1, 1, 1, 1, 1, 1, 0])
            for start in starts {
                var view = ClientView(start)
                for update in subscriber.deliveries(for: start.registration) { view.apply(update) }
                let current = try await engine.get(path: start.registration.path, query: nil, as: .admin)
                #expect(view.node == current)
            }
        }
    }

    @Test func importResendsTheValue() async throws {
        try await withDatabase { _, engine in
            try await engine.set("", Self.initial)
            let subscriber = FakeSubscriber()
            let below = try await engine.listen(path: path("a/b"), query: nil, subscriber: subscriber, as: .admin)
            let above = try await engine.listen(path: path(""), query: nil, subscriber: subscriber, as: .admin)
            let json = Array(#"{"b":{"i":1},"j":2}"#.utf8)
            let chunks = Chunks(json)
            try await engine.store.importJSON(at: path("a"), nextChunk: { chunks.next() })
            await engine.waitForDeliveries()
            #expect(
                subscriber.deliveries(for: below.registration).map(FakeSubscriber.line) == [
                    "d a/b null", #"d a/b {"i":1}"#,
                ]
            )
            #expect(
                subscriber.deliveries(for: above.registration).map(FakeSubscriber.line) == [
                    "d a null", #"d a {"b":{"i":1},"j":2}"#,
                ]
            )
        }
    }

    @Test func subscribersOfOneLocationShareOneEncodedUpdate() async throws {
        try await withDatabase { _, engine in
            let subscribers = (0..<50).map { _ in FakeSubscriber() }
            for subscriber in subscribers {
                _ = try await engine.listen(path: path("room"), query: nil, subscriber: subscriber, as: .admin)
            }
            // Listens above the change get the same push too: it does not depend on their path.
            let above = FakeSubscriber()
            _ = try await engine.listen(path: .root, query: nil, subscriber: above, as: .admin)
            try await engine.set("room/msg", #""hi""#)
            await engine.waitForDeliveries()
            let first = try #require(subscribers[0].deliveries.first?.update)
            for subscriber in subscribers {
                #expect(subscriber.deliveries.count == 1)
                #expect(subscriber.deliveries.first?.update === first)
            }
            #expect(above.deliveries.first?.update === first)
            #expect(
                String(decoding: first.message, as: UTF8.self)
                    == #"{"t":"d","d":{"a":"d","b":{"p":"room/msg","d":"hi"}}}"#
            )
        }
    }

    @Test func unlistenStopsDeliveriesAndForgetsTheGroup() async throws {
        try await withDatabase { _, engine in
            let subscriber = FakeSubscriber()
            let start = try await engine.listen(path: path("a"), query: nil, subscriber: subscriber, as: .admin)
            try await engine.set("a/x", "1")
            engine.unlisten(start.registration)
            try await engine.set("a/x", "2")
            await engine.waitForDeliveries()
            #expect(subscriber.lines == ["d a/x 1"])
            let counts = await engine.fanout.counts()
            #expect(counts.groups == 0 && counts.subscribers == 0)
        }
    }

    @Test func goneSubscribersAreForgotten() async throws {
        try await withDatabase { _, engine in
            var subscriber: FakeSubscriber? = FakeSubscriber()
            _ = try await engine.listen(path: path("a"), query: nil, subscriber: subscriber!, as: .admin)
            await engine.waitForDeliveries()
            subscriber = nil
            try await engine.set("a/x", "1")
            await engine.waitForDeliveries()
            let counts = await engine.fanout.counts()
            #expect(counts.groups == 0 && counts.subscribers == 0)
        }
    }

    @Test func listenStartCarriesDataAndHash() async throws {
        try await withDatabase { _, engine in
            try await engine.set("a", #"{"x":{".value":1,".priority":2}}"#)
            let start = try await engine.listen(path: path("a"), query: nil, subscriber: FakeSubscriber(), as: .admin)
            #expect(text(start.data) == #"{"x":{".value":1,".priority":2}}"#)
            #expect(start.hash == ValueHash.hash(start.data))
            #expect(start.warnings.isEmpty)
            let empty = try await engine.listen(
                path: path("none"),
                query: nil,
                subscriber: FakeSubscriber(),
                as: .admin
            )
            #expect(empty.data == nil && empty.hash == "")
        }
    }
}

/// Hands out a byte array in small chunks (import input).
final class Chunks: Sendable {
    private let state: Mutex<(bytes: [UInt8], offset: Int)>
    init(_ bytes: [UInt8]) { state = Mutex((bytes, 0)) }
    func next() -> [UInt8]? {
        state.withLock { state in
            guard state.offset < state.bytes.count else { return nil }
            let end = min(state.offset + 5, state.bytes.count)
            defer { state.offset = end }
            return Array(state.bytes[state.offset..<end])
        }
    }
}
