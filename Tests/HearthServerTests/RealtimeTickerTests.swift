import HearthProtocol
import NIOCore
import NIOEmbedded
import Synchronization
import Testing

@testable import HearthServer

/// The ticker on an `EmbeddedEventLoop` whose time the test moves, with a clock it gives: one
/// repeated task per loop, started with the first member and cancelled with the last.
struct RealtimeTickerTests {
    final class Member: RealtimeTickable {
        let eventLoop: any EventLoop
        var tickSlot = -1
        var ticks: [Int64] = []

        init(_ loop: any EventLoop) {
            eventLoop = loop
        }

        func tick(now: Timestamp) {
            ticks.append(now.millisecondsSince1970)
        }
    }

    /// A clock the test sets.
    final class Clock: Sendable {
        let milliseconds = Atomic<Int64>(0)
        var read: @Sendable () -> Timestamp {
            { Timestamp(millisecondsSince1970: self.milliseconds.load(ordering: .relaxed)) }
        }
    }

    @Test func membersAreTickedEveryIntervalWithTheGivenTime() {
        let loop = EmbeddedEventLoop()
        let clock = Clock()
        let ticker = RealtimeTicker(clock: clock.read)
        let (a, b) = (Member(loop), Member(loop))
        ticker.register(a, interval: .seconds(5))
        ticker.register(b, interval: .seconds(5))
        clock.milliseconds.store(1_000, ordering: .relaxed)
        loop.advanceTime(by: .seconds(4))
        #expect(a.ticks.isEmpty)
        loop.advanceTime(by: .seconds(1))
        #expect(a.ticks == [1_000] && b.ticks == [1_000])
        clock.milliseconds.store(2_000, ordering: .relaxed)
        loop.advanceTime(by: .seconds(5))
        #expect(a.ticks == [1_000, 2_000] && b.ticks == [1_000, 2_000])
    }

    @Test func aMemberThatLeavesIsNotTickedAndTheLastOneStopsTheTask() {
        let loop = EmbeddedEventLoop()
        let ticker = RealtimeTicker(clock: { Timestamp(millisecondsSince1970: 7) })
        let members = (0..<3).map { _ in Member(loop) }
        for member in members { ticker.register(member, interval: .seconds(1)) }
        ticker.unregister(members[0])
        #expect(members[0].tickSlot == -1)
        #expect(members[2].tickSlot == 0, "the last member took the leaver's slot")
        loop.advanceTime(by: .seconds(1))
        #expect(members[0].ticks.isEmpty && members[1].ticks == [7] && members[2].ticks == [7])
        ticker.unregister(members[1])
        ticker.unregister(members[2])
        ticker.unregister(members[2])  // twice: nothing
        #expect(ticker.loopCount == 0)
        loop.advanceTime(by: .seconds(10))
        #expect(members[1].ticks == [7] && members[2].ticks == [7], "the task was cancelled")
        // A member after the last one starts a new task.
        let late = Member(loop)
        ticker.register(late, interval: .seconds(1))
        loop.advanceTime(by: .seconds(1))
        #expect(late.ticks == [7])
    }

    @Test func tickAllTicksEveryMemberOnItsLoopNow() {
        let loop = EmbeddedEventLoop()
        let ticker = RealtimeTicker(clock: { Timestamp(millisecondsSince1970: 42) })
        let member = Member(loop)
        ticker.register(member, interval: .seconds(60))
        ticker.tickAll()
        #expect(member.ticks.isEmpty, "on the loop, not in the caller")
        loop.run()
        #expect(member.ticks == [42])
    }

    @Test func eachLoopHasItsOwnTask() {
        let (first, second) = (EmbeddedEventLoop(), EmbeddedEventLoop())
        let ticker = RealtimeTicker(clock: { Timestamp(millisecondsSince1970: 1) })
        let (a, b) = (Member(first), Member(second))
        ticker.register(a, interval: .seconds(1))
        ticker.register(b, interval: .seconds(2))
        #expect(ticker.loopCount == 2)
        first.advanceTime(by: .seconds(2))
        second.advanceTime(by: .seconds(2))
        #expect(a.ticks.count == 2 && b.ticks.count == 1)
    }
}
