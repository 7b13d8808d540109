import HearthCore
import HearthProtocol
import NIOCore
import NIOEmbedded
import Synchronization
import Testing

@testable import HearthServer

/// A loop's inbox on an `EmbeddedEventLoop`, with connections of the test's own and a clock it
/// moves: deliveries handed over on the loop, grouped by connection in order, one flush each;
/// the pacing of drains, slices that yield to the loop, a write's answer ahead of the rest of a
/// fan-out, and the hold on reading.
struct RealtimeLoopInboxTests {
    /// What the connections saw, in order (the test runs on one thread: the embedded loop's).
    final class Journal: @unchecked Sendable {
        var entries: [String] = []
        func served(_ name: String) -> Bool { entries.contains("\(name) begin") }
    }

    final class Connection: RealtimeInboxConnection, @unchecked Sendable {
        let name: String
        let journal: Journal
        var inboxSlot = -1
        /// Run for each delivery, after it is noted.
        var onReceive: ((RealtimeDelivery) -> Void)?
        /// Deliveries are counted, not noted (a flood).
        var quiet = false
        var received = 0

        init(_ name: String, _ journal: Journal) {
            self.name = name
            self.journal = journal
        }

        func beginDeliveries() {
            if !quiet { journal.entries.append("\(name) begin") }
        }

        func receive(_ delivery: RealtimeDelivery) {
            received += 1
            if !quiet {
                switch delivery {
                case .update(_, let id, _): journal.entries.append("\(name) update \(id)")
                case .revoked(let id, _): journal.entries.append("\(name) revoked \(id)")
                case .answer(let answer): journal.entries.append("\(name) answer \(answer.requestID.rawValue)")
                }
            }
            onReceive?(delivery)
        }

        func endDeliveries() {
            if !quiet { journal.entries.append("\(name) end") }
        }

        func resumeReading() {
            journal.entries.append("\(name) resumes reading")
        }

        func completed(_ outcome: RequestOutcome, for requestID: RequestID) {
            journal.entries.append("\(name) completed \(requestID.rawValue)")
        }
    }

    /// Uptime nanoseconds the inboxes read; the test moves it.
    final class Clock: Sendable {
        let nanoseconds = Atomic<UInt64>(1_000_000_000)
        var read: @Sendable () -> UInt64 { { self.nanoseconds.load(ordering: .relaxed) } }
        func advance(microseconds: UInt64) {
            nanoseconds.add(microseconds * 1_000, ordering: .relaxed)
        }
    }

    struct Fixture {
        let loop = EmbeddedEventLoop()
        let clock = Clock()
        let journal = Journal()
        let inbox: RealtimeLoopInbox<Connection>

        init() {
            let inboxes = RealtimeLoopInboxes<Connection>(tuning: RealtimeTuning(), clock: clock.read)
            inbox = inboxes.inbox(for: loop)
        }

        func connections(_ count: Int) -> [Connection] {
            (0..<count).map { Connection("c\($0)", journal) }
        }
    }

    static let key = ListenKey(path: try! DataPath.parse("/a"), query: .default)

    static func update(_ value: String) -> EncodedUpdate {
        let path = try! DataPath.parse("/a")
        return EncodedUpdate(path: path, change: .set(try! TreeParser.parse(value, at: path).node))
    }

    static func answer(_ id: Int64) -> RealtimeDelivery {
        .answer(RealtimeDelivery.WriteAnswer(.ok, for: RequestID(id)))
    }

    @Test func deliveriesAreHandedOverOnTheLoopEachConnectionsTogetherAndInOrder() {
        let fixture = Fixture()
        let (a, b) = (Connection("a", fixture.journal), Connection("b", fixture.journal))
        let (first, second) = (Self.update("1"), Self.update("2"))
        fixture.inbox.append(a, .update(first, id: 1, key: Self.key))
        fixture.inbox.append(b, .update(first, id: 2, key: Self.key))
        fixture.inbox.append(a, .revoked(id: 1, key: Self.key))
        fixture.inbox.append(b, Self.answer(5))
        fixture.inbox.append(a, .update(second, id: 3, key: Self.key))
        #expect(fixture.journal.entries.isEmpty, "nothing before the loop runs")
        fixture.loop.run()
        #expect(
            fixture.journal.entries == [
                "a begin", "a update 1", "a revoked 1", "a update 3", "a end",
                "b begin", "b update 2", "b answer 5", "b end",
            ]
        )
        #expect(a.inboxSlot == -1 && b.inboxSlot == -1)
        // The next delivery makes a batch of its own.
        fixture.inbox.append(b, .update(second, id: 2, key: Self.key))
        fixture.loop.run()
        #expect(fixture.journal.entries.suffix(3) == ["b begin", "b update 2", "b end"])
    }

    @Test func aBatchFramesAnUpdateOnceForAllItsConnections() {
        let fixture = Fixture()
        let connections = fixture.connections(3)
        var frames: [ByteBuffer] = []
        for connection in connections {
            connection.onReceive = { delivery in
                guard case .update(let update, _, _) = delivery else { return }
                frames.append(fixture.inbox.frame(for: update))
            }
        }
        let update = Self.update(#""hello""#)
        for connection in connections { fixture.inbox.append(connection, .update(update, id: 1, key: Self.key)) }
        fixture.loop.run()
        #expect(frames.count == 3)
        let storage = frames.map { $0.withUnsafeReadableBytes { UInt(bitPattern: $0.baseAddress) } }
        #expect(Set(storage).count == 1, "one buffer, written to each connection")
    }

    /// The frames of a batch: at most 8 (the oldest replaced first), cleared with the batch.
    @Test func aBatchKeepsEightFramesAndTheNextBatchBuildsItsOwn() {
        let fixture = Fixture()
        let updates = (0..<9).map { Self.update("\($0)") }
        func storage(_ frame: ByteBuffer) -> UInt {
            frame.withUnsafeReadableBytes { UInt(bitPattern: $0.baseAddress) }
        }
        var kept: [ByteBuffer] = []
        var sameInBatch: [Bool] = []
        let connection = Connection("a", fixture.journal)
        connection.onReceive = { _ in
            kept = updates.map { fixture.inbox.frame(for: $0) }
            // The ninth replaced the first; the others are still there.
            sameInBatch = [8, 1, 7, 0].map { storage(fixture.inbox.frame(for: updates[$0])) == storage(kept[$0]) }
        }
        fixture.inbox.append(connection, .update(updates[0], id: 1, key: Self.key))
        fixture.loop.run()
        #expect(sameInBatch == [true, true, true, false])
        var nextBatch: ByteBuffer?
        connection.onReceive = { _ in nextBatch = fixture.inbox.frame(for: updates[8]) }
        fixture.inbox.append(connection, .update(updates[0], id: 1, key: Self.key))
        fixture.loop.run()
        #expect(nextBatch.map(storage) != storage(kept[8]), "built again")
        #expect(nextBatch == kept[8], "the same frame")
    }

    /// Sustained fan-out (bursts less than `sustainedGap` apart) drains at once, as a lone burst
    /// does, with no wait for more commits; a write's answer goes out behind the pushes before it.
    @Test func underSustainedFanOutADrainStartsAtOnce() {
        let fixture = Fixture()
        let a = Connection("a", fixture.journal)
        // Kept alive: the pacing tells updates apart by identity (a freed one's address reused
        // would read as the same update).
        let updates = (0...3).map { Self.update("\($0)") }
        defer { withExtendedLifetime(updates) {} }
        fixture.inbox.append(a, .update(updates[1], id: 1, key: Self.key))
        fixture.loop.run()
        #expect(fixture.journal.entries == ["a begin", "a update 1", "a end"], "a lone burst: at once")
        // The next bursts begin 0.5 ms apart (more than the 250 µs burst window): sustained.
        fixture.clock.advance(microseconds: 500)
        fixture.inbox.append(a, .update(updates[2], id: 2, key: Self.key))
        fixture.loop.run()
        #expect(fixture.journal.entries.suffix(3) == ["a begin", "a update 2", "a end"], "no wait")
        fixture.clock.advance(microseconds: 500)
        fixture.inbox.append(a, .update(updates[3], id: 3, key: Self.key))
        fixture.inbox.append(a, Self.answer(9))
        fixture.loop.run()
        #expect(fixture.journal.entries.suffix(4) == ["a begin", "a update 3", "a answer 9", "a end"])
        #expect(fixture.journal.entries.count == 10)
    }

    /// A drain yields to the loop once its slice is over (checked every 16 steps), and goes on
    /// 20 µs later; a lone burst's slices are longer (500 µs) than those of sustained fan-out
    /// (100 µs). Each delivery here takes 10 µs of the test's clock.
    @Test func aDrainYieldsToTheLoopAfterItsSliceLongerForALoneBurst() {
        func firstSlice(sustained: Bool) -> Int {
            let fixture = Fixture()
            let (earlier, update) = (Self.update("0"), Self.update("1"))
            defer { withExtendedLifetime(earlier) {} }
            if sustained {
                // A burst 0.5 ms before: fan-out is sustained, the drain a paced one.
                fixture.inbox.append(Connection("earlier", fixture.journal), .update(earlier, id: 1, key: Self.key))
                fixture.loop.run()
                fixture.clock.advance(microseconds: 500)
            }
            let connections = fixture.connections(200)
            for connection in connections {
                connection.onReceive = { _ in fixture.clock.advance(microseconds: 10) }
            }
            for connection in connections { fixture.inbox.append(connection, .update(update, id: 1, key: Self.key)) }
            fixture.loop.run()
            let served = connections.filter { $0.received > 0 }.count
            #expect(served > 0 && served < 200, "the drain yielded")
            // Each yield is 20 µs of the loop's time.
            var yields = 0
            while connections.contains(where: { $0.received == 0 }), yields < 1_000 {
                fixture.loop.advanceTime(by: .microseconds(20))
                yields += 1
            }
            #expect(connections.allSatisfy { $0.received == 1 })
            return served
        }
        let lone = firstSlice(sustained: false)
        let sustained = firstSlice(sustained: true)
        #expect(lone >= 50, "500 µs at 10 µs each: \(lone)")
        #expect(sustained >= 10 && sustained < 50, "100 µs at 10 µs each: \(sustained)")
    }

    /// A loop none of whose connections sent a frame for `quietLoopAfter` (10 ms; they only
    /// listen) drains past a slice's end without a pause, for at most `quietLoopRun` (2 ms) at a
    /// time; a frame read on the loop brings the pauses back at the next slice's end. Each
    /// delivery here takes 10 µs of the test's clock, and every drain serves a lone burst
    /// (500 µs slices).
    @Test func aLoopWhoseConnectionsOnlyListenDrainsWithoutPauses() {
        let fixture = Fixture()
        let updates = (0..<3).map { Self.update("\($0)") }
        defer { withExtendedLifetime(updates) {} }
        /// Hands `count` connections a push of `update` and runs the loop without moving its
        /// time: the connections served before the drain's first pause.
        func firstRun(_ count: Int, _ update: EncodedUpdate) -> [Connection] {
            let connections = fixture.connections(count)
            for connection in connections {
                connection.quiet = true
                connection.onReceive = { _ in fixture.clock.advance(microseconds: 10) }
                fixture.inbox.append(connection, .update(update, id: 1, key: Self.key))
            }
            fixture.loop.run()
            return connections
        }
        func finish(_ connections: [Connection]) {
            var pauses = 0
            while connections.contains(where: { $0.received == 0 }), pauses < 1_000 {
                fixture.loop.advanceTime(by: .microseconds(20))
                pauses += 1
            }
            #expect(connections.allSatisfy { $0.received == 1 })
        }
        // A new inbox counts as having heard its connections: the first slice pauses.
        let talking = firstRun(600, updates[0])
        let talkingServed = talking.filter { $0.received > 0 }.count
        #expect(talkingServed >= 50 && talkingServed < 100, "one 500 µs slice: \(talkingServed)")
        finish(talking)
        // 20 ms without a frame: the drain runs on for 2 ms before its first pause.
        fixture.clock.advance(microseconds: 20_000)
        let quiet = firstRun(600, updates[1])
        let quietServed = quiet.filter { $0.received > 0 }.count
        #expect(quietServed >= 200 && quietServed < 260, "2 ms with no pause: \(quietServed)")
        finish(quiet)
        // A frame arrives: the next drain pauses after its first slice again.
        fixture.clock.advance(microseconds: 20_000)
        fixture.inbox.frameRead()
        let spoke = firstRun(600, updates[2])
        let spokeServed = spoke.filter { $0.received > 0 }.count
        #expect(spokeServed >= 50 && spokeServed < 100, "one 500 µs slice: \(spokeServed)")
        finish(spoke)
    }

    /// A write's outcome handed to the loop mid-drain (`UrgentWork`) ends the drain's slice at
    /// its next check: the answer leaves before the rest of the fan-out.
    @Test func aWritesOutcomeOvertakesTheRestOfAFanOut() {
        let fixture = Fixture()
        let connections = fixture.connections(40)
        let writer = Connection("writer", fixture.journal)
        connections[2].onReceive = { _ in fixture.inbox.completions.complete(writer, .ok, for: RequestID(7)) }
        let update = Self.update("1")
        for connection in connections { fixture.inbox.append(connection, .update(update, id: 1, key: Self.key)) }
        fixture.loop.run()
        #expect(fixture.journal.entries.contains("writer completed 7"))
        #expect(fixture.journal.served("c3") && !fixture.journal.served("c39"), "cut at the next check")
        let answered = fixture.journal.entries.firstIndex(of: "writer completed 7")
        let lastStarted = fixture.journal.entries.lastIndex { $0.hasSuffix(" begin") }
        #expect(answered! > lastStarted!)
        fixture.loop.advanceTime(by: .microseconds(20))
        #expect(fixture.journal.served("c39"))
        #expect(fixture.journal.entries.filter { $0.hasSuffix(" end") }.count == 40)
    }

    /// While more than `holdAbove` deliveries wait, a connection about to read holds its reading,
    /// and reads again once fewer than `resumeBelow` wait.
    @Test func readingIsHeldWhileFanOutIsBehindAndResumedOnceItCaughtUp() {
        let fixture = Fixture()
        let (flooded, reader) = (Connection("flooded", fixture.journal), Connection("reader", fixture.journal))
        flooded.quiet = true
        let update = Self.update("1")
        fixture.inbox.append(flooded, .update(update, id: 1, key: Self.key))
        #expect(!fixture.inbox.shouldHoldReading(reader))
        for _ in 0..<RealtimeLoopInboxes<Connection>.holdAbove {
            fixture.inbox.append(flooded, .update(update, id: 1, key: Self.key))
        }
        #expect(fixture.inbox.shouldHoldReading(reader))
        #expect(fixture.journal.entries.isEmpty)
        fixture.loop.run()
        #expect(flooded.received == RealtimeLoopInboxes<Connection>.holdAbove + 1)
        #expect(fixture.journal.entries == ["reader resumes reading"])
        #expect(!fixture.inbox.shouldHoldReading(reader))
    }

    /// The inbox keeps no connection past its batch: one that closed meanwhile gets its
    /// deliveries handed over (its `RealtimeConnection` drops them) and is then let go.
    @Test func aClosedConnectionsDeliveriesAreHandedOverAndTheConnectionLetGo() {
        let fixture = Fixture()
        weak var gone: Connection?
        do {
            let closed = Connection("closed", fixture.journal)
            gone = closed
            fixture.inbox.append(closed, .update(Self.update("1"), id: 1, key: Self.key))
            fixture.inbox.append(closed, .revoked(id: 1, key: Self.key))
        }
        #expect(gone != nil, "held while pending")
        fixture.loop.run()
        #expect(fixture.journal.entries == ["closed begin", "closed update 1", "closed revoked 1", "closed end"])
        #expect(gone == nil)
    }

    /// Writes started during a loop iteration go to their writers together, once its tasks ran:
    /// in order, all handed the same `WritePass`, and the next iteration's another one.
    @Test func writesStartedInOneIterationAreSubmittedTogetherInOrder() {
        let fixture = Fixture()
        var passes: [WritePass] = []
        fixture.inbox.submitWrite { pass in
            fixture.journal.entries.append("w1")
            passes.append(pass)
        }
        fixture.inbox.submitWrite { pass in
            fixture.journal.entries.append("w2")
            passes.append(pass)
        }
        #expect(fixture.journal.entries.isEmpty)
        fixture.loop.run()
        #expect(fixture.journal.entries == ["w1", "w2"])
        fixture.inbox.submitWrite { pass in
            fixture.journal.entries.append("w3")
            passes.append(pass)
        }
        fixture.loop.run()
        #expect(fixture.journal.entries == ["w1", "w2", "w3"])
        // The passes are kept alive here, so a new one cannot reuse a finished one's address.
        #expect(passes.count == 3 && passes[0] === passes[1] && passes[2] !== passes[0])
    }
}
