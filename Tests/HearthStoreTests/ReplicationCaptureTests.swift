import Dispatch
import HearthCore
import Synchronization
import Testing

@testable import HearthStore

/// A clustered writer's capture (`ReplicationCapture`) is also reached from the commits'
/// completions, on an event loop (the reads waiting for the changelog, the next append): they
/// must never wait for the writer's LevelDB write, which for a chat message's batch is long.
@Suite struct ReplicationCaptureTests {
    @Test func aWaitingReadIsToldWhileTheWriterIsInsideALevelDBWrite() throws {
        let inWrite = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let holding = Atomic<Bool>(false)
        var configuration = StoreConfiguration()
        configuration.replication = { _ in ReplicationSink(epoch: 1) { _, _ in } }
        configuration.batchWriter = { db in
            BatchWriter { batch, _ in
                if holding.exchange(false, ordering: .relaxed) {
                    inWrite.signal()
                    release.wait()
                }
                try db.write(batch, sync: false)
            }
        }
        let temp = try TemporaryStore(configuration: configuration)
        defer { temp.destroy() }
        let namespace = try temp.store.namespace("chat")
        let one = try value("1")
        let written = DispatchSemaphore(value: 0)
        namespace.write(Write(.set(path("a"), one))) { _ in written.signal() }
        written.wait()

        // The next write stops inside LevelDB's write.
        holding.store(true, ordering: .relaxed)
        namespace.write(Write(.set(path("b"), one))) { _ in written.signal() }
        inWrite.wait()
        // A read of what is committed asks the capture meanwhile (as a completion on an event
        // loop does): it is answered at once, not after the write.
        let told = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            namespace.writer.durable(through: 1) { _ in told.signal() }
        }
        let answered = told.wait(timeout: .now() + .seconds(5)) == .success
        release.signal()
        written.wait()
        #expect(answered)
    }
}
