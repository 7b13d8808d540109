import Foundation
import HearthTestSupport
import Testing

extension ClusterProcessTests {
    /// The issue's test 6, a history checker over a run: writers, each owning one key of one
    /// namespace, count up through both nodes with one request in flight while listeners follow
    /// the keys over a WebSocket and an event stream through each node (the owner's own, the
    /// other's relay and forward), and the owner is `kill -9`ed once. Every listener's events
    /// must follow the acknowledged writes in one order (`HistoryChecker`).
    @Suite("one history across a cluster's owner dying")
    struct ClusterHistoryTests {
        static let namespace = "history"
        static let writers = 4
        static var keys: [String] { (0..<writers).map { "w\($0)" } }

        @Test func everyListenerFollowsTheAcknowledgedWritesInOneOrderAcrossAnOwnersKill() async throws {
            var cluster = try await Cluster.start(nodes: 2)
            defer { Task { [cluster] in await cluster.stop() } }
            let zeros = Self.keys.map { #""\#($0)":0"# }.joined(separator: ",")
            let setup = try await cluster.nodes[0].request(
                "PUT",
                "/h.json?ns=\(Self.namespace)",
                body: "{\(zeros)}",
                admin: true
            )
            try #require(setup.status == 200, "\(setup.body)")
            let owner = try await cluster.owner(of: Self.namespace)
            let run = HistoryRun(namespace: Self.namespace, nodes: cluster.nodes)
            defer {
                run.stopWriting()
                run.stopListening()
            }

            // Listeners through both nodes: on the owner directly, and through the other node's
            // relay (WebSocket) and forward (event stream).
            let listeners = Task {
                await withTaskGroup(of: Void.self) { group in
                    for node in 0..<2 {
                        group.addTask { await run.listenOverWebSocket("WebSocket via node\(node)", preferring: node) }
                        group.addTask { await run.listenOverEventStream("SSE via node\(node)", preferring: node) }
                    }
                }
            }
            do {
                try await eventually(timeout: .seconds(15), interval: .milliseconds(50)) {
                    run.recorder.listenersWithASegment == 4
                }
            } catch is ConditionTimeout {
                throw TestFailure("not every listener got its snapshot: \(run.recorder.notes)")
            }

            // Writers through alternating nodes; the owner dies after 2 s; the writers go on
            // through the survivor for 3 s after its first acknowledgement.
            let killed = cluster.nodes[owner]
            await withTaskGroup(of: Void.self) { group in
                for writer in 0..<Self.writers { group.addTask { await run.write(key: "w\(writer)", turn: writer) } }
                group.addTask {
                    try? await Task.sleep(for: .seconds(2))
                    run.markDead(owner)
                    await killed.kill()
                    try? await eventually(timeout: .seconds(20), interval: .milliseconds(50)) {
                        run.writes.withLock { $0.acknowledgedAfterKill } > 0
                    }
                    try? await Task.sleep(for: .seconds(3))
                    run.stopWriting()
                }
            }

            // The final state through the survivor and through the killed node, restarted.
            let survivor = cluster.nodes[1 - owner]
            var finals: [String: [String: Int?]] = [:]
            finals["node\(1 - owner) (survivor)"] = try Self.values(
                await ClusterProcessTests.read("/h.json?ns=\(Self.namespace)", through: survivor)
            )
            cluster.nodes[owner] = try await Cluster.startNode(
                owner,
                directory: cluster.directory,
                database: cluster.database
            )
            finals["node\(owner) (restarted)"] = try Self.values(
                await ClusterProcessTests.read("/h.json?ns=\(Self.namespace)", through: cluster.nodes[owner])
            )

            // Each listener's last segment catches up with the final state, then they stop.
            let final = finals["node\(1 - owner) (survivor)"] ?? [:]
            try? await eventually(timeout: .seconds(10), interval: .milliseconds(50)) {
                let last = run.recorder.lastValues
                return last.count == 4 && last.values.allSatisfy { $0 == final }
            }
            run.stopListening()
            await listeners.value

            let writes = run.writes.withLock { $0 }
            let segments = run.recorder.segments
            let checker = HistoryChecker(
                keys: Self.keys,
                segments: segments,
                retried: writes.retried,
                acknowledged: writes.acknowledged,
                attempted: writes.attempted,
                finals: finals
            )
            let failures = checker.failures()
            let report = failures.prefix(30).joined(separator: "\n")
            let unacknowledged = writes.failures.prefix(20).joined(separator: "\n")
            let details = "notes: \(run.recorder.notes)\nwrites not acknowledged:\n\(unacknowledged)"
            #expect(failures.isEmpty, "\(failures.count) history failures:\n\(report)\n\(details)")
            #expect(writes.acknowledgedAfterKill > 0, "the survivor acknowledged no write")
            for listener in Set(segments.map(\.listener)) {
                let seen = segments.filter { $0.listener == listener }
                #expect(seen.count >= 2, "\(listener) was not cut off when the owner died: \(seen.count) segment")
            }
            print(
                "ClusterHistoryTests: \(writes.acknowledged.values.reduce(0, +)) writes acknowledged "
                    + "(\(writes.acknowledgedAfterKill) after the kill, \(writes.failures.count) failed attempts); "
                    + segments.map { "\($0.listener) #\($0.number): \($0.events.count)" }.joined(separator: ", ")
            )
        }

        /// The numbers at the keys of `/h` in a JSON answer.
        static func values(_ body: String) throws -> [String: Int?] {
            let object = try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any] ?? [:]
            var values: [String: Int?] = [:]
            for key in keys { values.updateValue(object[key] as? Int, forKey: key) }
            return values
        }
    }
}

/// The checker proven able to fail: hand-made histories with a gap, a reorder, a duplicate,
/// a disagreement between listeners, a lost acknowledged write and a listener left behind.
@Suite("the cluster history checker")
struct HistoryCheckerTests {
    static let keys = ["w0", "w1"]

    static func segment(_ listener: String, _ number: Int, _ events: [[String: Int?]]) -> HistorySegment {
        HistorySegment(
            listener: listener,
            number: number,
            events: events.enumerated().map { HistoryEvent(wholeTree: $0.offset == 0, values: $0.element) }
        )
    }

    static func check(_ segments: [HistorySegment], retried: [String: Set<Int>] = [:]) -> [String] {
        HistoryChecker(
            keys: keys,
            segments: segments,
            retried: retried,
            acknowledged: ["w0": 2, "w1": 1],
            attempted: ["w0": 2, "w1": 2],
            finals: ["node0": ["w0": 2, "w1": 1]]
        ).failures()
    }

    @Test func aConsistentHistoryPasses() {
        let failures = Self.check([
            Self.segment("A", 1, [["w0": 0, "w1": 0], ["w0": 1], ["w1": 1], ["w0": 2]]),
            Self.segment("B", 1, [["w0": 1, "w1": 0], ["w1": 1], ["w0": 2]]),
            Self.segment("C", 1, [["w0": 0, "w1": 0], ["w0": 1]]),
            Self.segment("C", 2, [["w0": 2, "w1": 1]]),
        ])
        #expect(failures == [])
    }

    @Test func aGapAReorderAndADuplicateFail() {
        let gap = Self.check([Self.segment("A", 1, [["w0": 0, "w1": 0], ["w0": 2], ["w1": 1]])])
        #expect(gap == ["A segment 1, event 1: w0 went from 0 to 2, a gap (1 missing)"])
        let reorder = Self.check([Self.segment("A", 1, [["w0": 0, "w1": 0], ["w0": 2], ["w0": 1], ["w1": 1]])])
        #expect(reorder.contains("A segment 1, event 1: w0 went from 0 to 2, a gap (1 missing)"))
        #expect(reorder.contains("A segment 1, event 2: w0 went from 2 back to 1, a reorder"))
        let history = [Self.segment("A", 1, [["w0": 0, "w1": 0], ["w0": 1], ["w0": 1], ["w0": 2], ["w1": 1]])]
        #expect(Self.check(history) == ["A segment 1, event 2: w0 went from 1 to 1, a duplicate"])
        // A write retried after an error may have committed twice: the same value twice is allowed.
        #expect(Self.check(history, retried: ["w0": [1]]) == [])
    }

    @Test func listenersThatDisagreeOnTheOrderFail() {
        let failures = Self.check([
            Self.segment("A", 1, [["w0": 0, "w1": 0], ["w0": 1], ["w1": 1], ["w0": 2]]),
            Self.segment("B", 1, [["w0": 0, "w1": 0], ["w1": 1], ["w0": 1], ["w0": 2]]),
        ])
        #expect(
            failures == [
                "A segment 1 saw w0=1 (event 1) before w1=1 (event 2); B segment 1 saw them the other way "
                    + "(events 2 and 1)"
            ]
        )
    }

    @Test func aFirstEventThatIsNoSnapshotFails() {
        let failures = Self.check([
            HistorySegment(
                listener: "A",
                number: 1,
                events: [HistoryEvent(wholeTree: false, values: ["w0": 1])]
            )
        ])
        #expect(failures.first == #"A segment 1: its first event is not a snapshot of /h: ["w0": 1]"#)
    }

    @Test func aLostAcknowledgedWriteAndAListenerLeftBehindFail() {
        let failures = HistoryChecker(
            keys: Self.keys,
            segments: [Self.segment("A", 1, [["w0": 0, "w1": 0], ["w0": 1], ["w1": 1]])],
            retried: [:],
            acknowledged: ["w0": 2, "w1": 1],
            attempted: ["w0": 3, "w1": 1],
            finals: ["node0": ["w0": 1, "w1": 1], "node1": ["w0": 2, "w1": nil]]
        ).failures()
        #expect(
            failures == [
                "through node0: w0 is 1, but 2 was acknowledged: an acknowledged write is lost",
                "through node1: w1 has no number, but 1 was acknowledged",
                "the nodes disagree: node0 reads [\"w0\": 1, \"w1\": 1], node1 reads [\"w0\": 2, \"w1\": nil]",
                "A ends at [\"w0\": 1, \"w1\": 1] (segment 1) but node1 reads [\"w0\": 2, \"w1\": nil]: "
                    + "its last events are missing",
            ]
        )
    }
}

// MARK: - The checker

/// One event a listener received, reduced to the keys under `/h` it touched, each with its
/// number in the listener's model of the tree right after the event (nil: no number there).
struct HistoryEvent: Sendable, Equatable {
    /// A put at the listened location itself: a segment's first event must be one (the snapshot).
    var wholeTree: Bool
    var values: [String: Int?]
}

/// What one listener saw over one connection, from its snapshot to the connection's end.
struct HistorySegment: Sendable {
    var listener: String
    var number: Int
    var events: [HistoryEvent] = []

    var name: String { "\(listener) segment \(number)" }

    /// Each key's number after the last event.
    var latest: [String: Int?] {
        var latest: [String: Int?] = [:]
        for event in events {
            for (key, value) in event.values { latest.updateValue(value, forKey: key) }
        }
        return latest
    }
}

/// The issue's history checker: per namespace, the acknowledged writes form one order that
/// every listener's events follow. Each key has one writer that counts up (1, 2, 3, …, the next
/// only once the last was acknowledged, an error retried with the same number), so
/// - within a segment, each key's numbers go up by exactly one from one event touching it to
///   the next: no gap, no reorder, no duplicate (the same number twice only where its writer
///   retried it: a commit it was not told of, then the retry's);
/// - two segments order every two changes (key, number) both saw the same way (the changes a
///   snapshot holds are unordered among themselves);
/// - each node's final state holds every acknowledged write: each key's number is its last
///   acknowledged one or the last one its writer sent, and every node reads the same;
/// - each listener's last segment ends at that final state.
struct HistoryChecker {
    /// A change of one key a listener saw.
    struct Change: Hashable, Comparable, CustomStringConvertible {
        var key: String
        var value: Int
        var description: String { "\(key)=\(value)" }
        static func < (a: Change, b: Change) -> Bool { (a.key, a.value) < (b.key, b.value) }
    }

    var keys: [String]
    var segments: [HistorySegment]
    /// Per key, the numbers its writer sent more than once.
    var retried: [String: Set<Int>]
    /// Per key, the last number acknowledged.
    var acknowledged: [String: Int]
    /// Per key, the last number its writer sent (acknowledged or not).
    var attempted: [String: Int]
    /// Per node's name, each key's number read at the end.
    var finals: [String: [String: Int?]]

    /// Every failure, each naming the listener, segment, key and numbers; empty when the
    /// history is one.
    func failures() -> [String] {
        segments.flatMap(failures(of:)) + orderFailures() + finalFailures()
    }

    /// The numbers of each key within one segment.
    func failures(of segment: HistorySegment) -> [String] {
        guard let snapshot = segment.events.first else { return [] }
        guard snapshot.wholeTree else {
            return ["\(segment.name): its first event is not a snapshot of /h: \(Self.sorted(snapshot.values))"]
        }
        var failures: [String] = []
        var current: [String: Int] = [:]
        for key in keys {
            guard let value = snapshot.values[key] ?? nil else {
                failures.append("\(segment.name): the snapshot has no number at \(key)")
                continue
            }
            current[key] = value
        }
        for (index, event) in segment.events.enumerated().dropFirst() {
            for key in keys {
                guard let touched = event.values[key], let previous = current[key] else { continue }
                let at = "\(segment.name), event \(index): \(key)"
                guard let value = touched else {
                    failures.append("\(at) has no number after \(previous)")
                    continue
                }
                if value > previous + 1 {
                    let missing = value == previous + 2 ? "\(previous + 1)" : "\(previous + 1)…\(value - 1)"
                    failures.append("\(at) went from \(previous) to \(value), a gap (\(missing) missing)")
                } else if value < previous {
                    failures.append("\(at) went from \(previous) back to \(value), a reorder")
                } else if value == previous, retried[key]?.contains(value) != true {
                    failures.append("\(at) went from \(previous) to \(value), a duplicate")
                }
                current[key] = max(previous, value)
            }
        }
        return failures
    }

    /// Each change a segment saw, with the index of the event it first came in (0: the snapshot).
    static func positions(of segment: HistorySegment) -> [Change: Int] {
        var positions: [Change: Int] = [:]
        for (index, event) in segment.events.enumerated() {
            for case (let key, let value?) in event.values where positions[Change(key: key, value: value)] == nil {
                positions[Change(key: key, value: value)] = index
            }
        }
        return positions
    }

    /// Any two segments that order two changes they both saw differently. Sorted by the first
    /// segment's positions (ties by the second's), the second's positions of the common
    /// changes never go down unless two changes are ordered both ways.
    func orderFailures() -> [String] {
        let positioned = segments.map { ($0, Self.positions(of: $0)) }
        var failures: [String] = []
        for first in positioned.indices {
            for second in positioned.indices where second > first {
                let (a, inA) = positioned[first]
                let (b, inB) = positioned[second]
                let common = inA.keys.filter { inB[$0] != nil }.sorted {
                    (inA[$0]!, inB[$0]!, $0) < (inA[$1]!, inB[$1]!, $1)
                }
                for (earlier, later) in zip(common, common.dropFirst()) where inB[later]! < inB[earlier]! {
                    failures.append(
                        "\(a.name) saw \(earlier) (event \(inA[earlier]!)) before \(later) (event \(inA[later]!)); "
                            + "\(b.name) saw them the other way (events \(inB[earlier]!) and \(inB[later]!))"
                    )
                    break
                }
            }
        }
        return failures
    }

    /// The final state through each node, and each listener's last segment against it.
    func finalFailures() -> [String] {
        var failures: [String] = []
        for (node, values) in finals.sorted(by: { $0.key < $1.key }) {
            for key in keys {
                let acked = acknowledged[key] ?? 0
                let sent = attempted[key] ?? acked
                guard let value = values[key] ?? nil else {
                    failures.append("through \(node): \(key) has no number, but \(acked) was acknowledged")
                    continue
                }
                if value < acked {
                    failures.append(
                        "through \(node): \(key) is \(value), but \(acked) was acknowledged: an acknowledged write is lost"
                    )
                } else if value != acked && value != sent {
                    failures.append(
                        "through \(node): \(key) is \(value), neither the last acknowledged (\(acked)) nor the last "
                            + "sent (\(sent))"
                    )
                }
            }
        }
        let ordered = finals.sorted { $0.key < $1.key }
        guard let (firstNode, first) = ordered.first else { return failures }
        for (node, values) in ordered.dropFirst() where values != first {
            failures.append(
                "the nodes disagree: \(firstNode) reads \(Self.sorted(first)), \(node) reads \(Self.sorted(values))"
            )
        }
        guard let (lastNode, last) = ordered.last else { return failures }
        for listener in Set(segments.map(\.listener)).sorted() {
            guard let segment = segments.filter({ $0.listener == listener }).max(by: { $0.number < $1.number })
            else { continue }
            let latest = segment.latest.filter { keys.contains($0.key) }
            if latest != last {
                failures.append(
                    "\(listener) ends at \(Self.sorted(latest)) (segment \(segment.number)) but \(lastNode) reads "
                        + "\(Self.sorted(last)): its last events are missing"
                )
            }
        }
        return failures
    }

    /// `values` printed in key order.
    static func sorted(_ values: [String: Int?]) -> String {
        let entries = values.sorted { $0.key < $1.key }.map { "\"\($0.key)\": \($0.value.map(String.init) ?? "nil")" }
        return "[" + entries.joined(separator: ", ") + "]"
    }
}

// MARK: - The run

/// A listener's model of the tree at `/h`: each event changes it as it would a client's cache,
/// and becomes a `HistoryEvent` with each touched key's number read from the model after it.
struct ListenerModel {
    private var tree: Any?

    /// Applies a put (`merge` false) or a merge at `path` (components below `/h`).
    mutating func apply(merge: Bool, path: [String], data: Any?) -> HistoryEvent {
        var writes: [([String], Any?)] = []
        if merge, let children = data as? [String: Any] {
            for (child, value) in children {
                writes.append((path + child.split(separator: "/").map(String.init), value))
            }
        } else {
            writes.append((path, data))
        }
        var touched: Set<String> = []
        for (at, value) in writes {
            if let key = at.first {
                touched.insert(key)
            } else {
                touched.formUnion(Self.children(of: tree))
            }
            tree = Self.setting(value, at: at[...], in: tree)
            if at.isEmpty { touched.formUnion(Self.children(of: tree)) }
        }
        var values: [String: Int?] = [:]
        for key in touched { values.updateValue((tree as? [String: Any])?[key] as? Int, forKey: key) }
        return HistoryEvent(wholeTree: !merge && path.isEmpty, values: values)
    }

    static func children(of tree: Any?) -> [String] {
        (tree as? [String: Any]).map { Array($0.keys) } ?? []
    }

    static func setting(_ value: Any?, at path: ArraySlice<String>, in tree: Any?) -> Any? {
        guard let first = path.first else { return value is NSNull ? nil : value }
        var object = tree as? [String: Any] ?? [:]
        object[first] = setting(value, at: path.dropFirst(), in: object[first])
        return object.isEmpty ? nil : object
    }
}

/// What the listeners saw: their segments in the order they began.
final class HistoryRecorder: Sendable {
    private let state = Locked<(segments: [HistorySegment], notes: [String])>(([], []))

    /// Begins `listener`'s next segment; its index for `record`.
    func begin(_ listener: String) -> Int {
        state.withLock { state in
            let number = state.segments.filter { $0.listener == listener }.count + 1
            state.segments.append(HistorySegment(listener: listener, number: number))
            return state.segments.count - 1
        }
    }

    func record(_ event: HistoryEvent, in segment: Int) {
        state.withLock { $0.segments[segment].events.append(event) }
    }

    func note(_ text: String) {
        state.withLock { $0.notes.append(text) }
    }

    var segments: [HistorySegment] { state.withLock { $0.segments } }
    var notes: [String] { state.withLock { $0.notes } }
    var listenersWithASegment: Int { Set(segments.map(\.listener)).count }

    /// Each listener's numbers after its last segment's last event.
    var lastValues: [String: [String: Int?]] {
        var last: [String: [String: Int?]] = [:]
        for segment in segments { last[segment.listener] = segment.latest }
        return last
    }
}

/// One run's writers and listeners over the nodes of a cluster.
final class HistoryRun: Sendable {
    struct Writes: Sendable {
        var acknowledged: [String: Int] = [:]
        var attempted: [String: Int] = [:]
        var retried: [String: Set<Int>] = [:]
        /// Each attempt that was not acknowledged: key=value, the node, the answer.
        var failures: [String] = []
        var acknowledgedAfterKill = 0
    }

    let namespace: String
    let nodes: [ProcessTestServer]
    let recorder = HistoryRecorder()
    let writes = Locked(Writes())
    private let state = Locked<(dead: Set<Int>, killedAt: ContinuousClock.Instant?, writing: Bool, listening: Bool)>(
        ([], nil, true, true)
    )

    init(namespace: String, nodes: [ProcessTestServer]) {
        self.namespace = namespace
        self.nodes = nodes
    }

    /// `nodes[index]` is about to be killed: nothing is sent to it any more.
    func markDead(_ index: Int) {
        state.withLock {
            $0.dead.insert(index)
            $0.killedAt = .now
        }
    }

    func stopWriting() { state.withLock { $0.writing = false } }
    func stopListening() { state.withLock { $0.listening = false } }
    var writing: Bool { state.withLock { $0.writing } }
    var listening: Bool { state.withLock { $0.listening } }

    /// `nodes[preferred]`, or another node once it is dead.
    func node(preferring preferred: Int) -> ProcessTestServer {
        let dead = state.withLock { $0.dead }
        let index = (0..<nodes.count).map { (preferred + $0) % nodes.count }.first { !dead.contains($0) } ?? preferred
        return nodes[index]
    }

    /// Writes 1, 2, 3, … at `/h/key` through alternating nodes, one request in flight, until
    /// stopped: the next number only once the last was acknowledged, an error retried with
    /// the same number.
    func write(key: String, turn first: Int) async {
        var turn = first
        var value = 0
        while writing {
            let next = value + 1
            writes.withLock { $0.attempted[key] = next }
            var tries = 0
            while writing {
                tries += 1
                if tries > 1 { writes.withLock { _ = $0.retried[key, default: []].insert(next) } }
                turn += 1
                let started = ContinuousClock.now
                let node = node(preferring: turn % nodes.count)
                let answer = try? await node.request(
                    "PUT",
                    "/h/\(key).json?ns=\(namespace)",
                    body: "\(next)",
                    admin: true,
                    timeout: .seconds(10)
                )
                if answer?.status == 200 {
                    value = next
                    let afterKill = state.withLock { $0.killedAt.map { started > $0 } ?? false }
                    writes.withLock {
                        $0.acknowledged[key] = next
                        if afterKill { $0.acknowledgedAfterKill += 1 }
                    }
                    break
                }
                let failure = answer.map { "\($0.status) \($0.body)" } ?? "no answer"
                writes.withLock { $0.failures.append("\(key)=\(next) via \(node.port): \(failure)") }
                try? await Task.sleep(for: .milliseconds(50))
            }
        }
    }

    /// Listens at `/h` over the realtime protocol as the admin through `nodes[preferred]` (the
    /// other node once it is dead) until stopped; each connection is a segment.
    func listenOverWebSocket(_ name: String, preferring preferred: Int) async {
        while listening {
            let node = node(preferring: preferred)
            // The hello is awaited briefly: HummingbirdWSClient may miss a close that follows the
            // 101 at once (a relay whose owner is gone) and wait on a connection the server ended.
            let client = try? await RealtimeTestClient.connect(port: node.port, ns: namespace, readHello: false)
            guard let client, (try? await client.nextMessage(timeout: .seconds(3))) != nil else {
                await client?.close()
                try? await Task.sleep(for: .milliseconds(100))
                continue
            }
            let auth = client.request("auth", #"{"cred":"\#(TestServer.adminSecret)"}"#)
            let listen = client.request("q", #"{"p":"/h","h":""}"#)
            var model = ListenerModel()
            var segment: Int?
            reading: while true {
                let ended = client.isEnded
                let message: [String: Any]
                do {
                    message = try await client.nextJSON(timeout: .milliseconds(250))
                } catch {
                    if ended || !listening { break reading }
                    continue
                }
                guard let data = message["d"] as? [String: Any], let body = data["b"] as? [String: Any] else {
                    continue
                }
                if let id = data["r"] as? Int, id == auth || id == listen, body["s"] as? String != "ok" {
                    recorder.note("\(name) through \(node.port): request \(id) answered \(body)")
                    break reading
                }
                switch data["a"] as? String {
                case "d", "m":
                    guard var path = (body["p"] as? String)?.split(separator: "/").map(String.init),
                        path.first == "h"
                    else { continue }
                    path.removeFirst()
                    let event = model.apply(merge: data["a"] as? String == "m", path: path, data: body["d"])
                    let index = segment ?? recorder.begin(name)
                    segment = index
                    recorder.record(event, in: index)
                case "c":
                    recorder.note("\(name) through \(node.port): the listen was cancelled: \(body)")
                    break reading
                default: continue
                }
            }
            await client.close()
        }
    }

    /// Listens at `/h` with an event stream as the admin through `nodes[preferred]` (the other
    /// node once it is dead) until stopped; each stream is a segment.
    func listenOverEventStream(_ name: String, preferring preferred: Int) async {
        while listening {
            let node = node(preferring: preferred)
            guard
                let stream = try? await SSETestStream.open(
                    port: node.port,
                    path: "/h.json?ns=\(namespace)",
                    headers: [("Authorization", "Bearer \(TestServer.adminSecret)")]
                )
            else {
                try? await Task.sleep(for: .milliseconds(100))
                continue
            }
            guard stream.status == 200 else {
                stream.cancel()
                try? await Task.sleep(for: .milliseconds(100))
                continue
            }
            var model = ListenerModel()
            var segment: Int?
            reading: while true {
                let ended = stream.isEnded
                let event: SSETestStream.Event
                do {
                    event = try await stream.next(timeout: .milliseconds(250))
                } catch {
                    if ended || !listening { break reading }
                    continue
                }
                switch event.name {
                case "put", "patch":
                    let json = event.json
                    guard let path = json["path"] as? String else {
                        recorder.note("\(name) through \(node.port): malformed \(event)")
                        continue
                    }
                    let parts = path.split(separator: "/").map(String.init)
                    let change = model.apply(merge: event.name == "patch", path: parts, data: json["data"])
                    let index = segment ?? recorder.begin(name)
                    segment = index
                    recorder.record(change, in: index)
                case "keep-alive": continue
                default:
                    recorder.note("\(name) through \(node.port): \(event)")
                    break reading
                }
            }
            stream.cancel()
        }
    }
}
