import HearthProtocol
import NIOCore
import NIOEmbedded
import Synchronization
import Testing

@testable import HearthServer

/// Write answers handed to a loop from the writers' threads: one `execute` for all that arrive
/// before it runs, in the order they completed, and the loop's drain told (`UrgentWork`).
struct RealtimeLoopCompletionsTests {
    final class Connection: RealtimeWriteAnswering {
        let answers = Mutex<[Int]>([])

        func completed(_ outcome: RequestOutcome, for requestID: RequestID) {
            answers.withLock { $0.append(Int(requestID.rawValue)) }
        }
    }

    @Test func answersReachTheLoopTogetherAndInOrder() {
        let loop = EmbeddedEventLoop()
        let urgent = UrgentWork()
        let completions = RealtimeLoopCompletions<Connection>(eventLoop: loop, urgent: urgent)
        let (a, b) = (Connection(), Connection())
        completions.complete(a, .ok, for: RequestID(1))
        completions.complete(b, .ok, for: RequestID(2))
        completions.complete(a, .ok, for: RequestID(3))
        #expect(a.answers.withLock { $0 }.isEmpty, "nothing before the loop runs")
        #expect(urgent.take(), "the loop's drain was told")
        #expect(!urgent.take(), "once")
        loop.run()
        #expect(a.answers.withLock { $0 } == [1, 3])
        #expect(b.answers.withLock { $0 } == [2])
        // The next answer schedules a hand-over of its own.
        completions.complete(b, .ok, for: RequestID(4))
        #expect(urgent.take())
        loop.run()
        #expect(b.answers.withLock { $0 } == [2, 4])
    }

    @Test func urgentWorkIsRaisedUntilTaken() {
        let urgent = UrgentWork()
        #expect(!urgent.take())
        urgent.raise()
        urgent.raise()
        #expect(urgent.take())
        #expect(!urgent.take())
    }
}
