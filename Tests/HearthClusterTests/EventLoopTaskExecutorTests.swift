import HearthNIO
import NIOCore
import NIOPosix
import Testing

/// A cluster node's PostgreSQL links run postgres-nio's async statements as tasks preferring the
/// link's loop (`PostgresLink.execute`): the task must start there and come back there after it
/// waits on something completed on another thread.
@Suite("A task that prefers an event loop runs on it")
struct EventLoopTaskExecutorTests {
    @Test func aTaskPreferringALoopRunsOnItBeforeAndAfterItWaits() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 2)
        let loop = group.next()
        let other = group.next()
        #expect(loop !== other)
        let executor = EventLoopTaskExecutor(eventLoop: loop)
        let elsewhere = other
        let seen = try await Task(executorPreference: executor) { () -> [Bool] in
            var onLoop = [loop.inEventLoop]
            // Completed on the other loop's thread; the task resumes on its own loop.
            try await elsewhere.scheduleTask(in: .milliseconds(5)) { elsewhere.inEventLoop }.futureResult.get()
            onLoop.append(loop.inEventLoop)
            try await Task.sleep(for: .milliseconds(1))
            onLoop.append(loop.inEventLoop)
            return onLoop
        }.value
        #expect(seen == [true, true, true])
        // Without the preference the same code runs on Swift's global pool, not on the loop.
        let withoutPreference = await Task { loop.inEventLoop }.value
        #expect(withoutPreference == false)
        try await group.shutdownGracefully()
    }
}
