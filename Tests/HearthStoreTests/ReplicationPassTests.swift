import Dispatch
import HearthCore
import Synchronization
import Testing

@testable import HearthStore

/// A cluster node's replicated writers run their rounds in passes on one thread
/// (`SharedWriterThread`): a round that more of its pass follow hands its append over
/// `.afterPass`, the pass's last one `.now`, and the store says when such a pass ended. A round
/// handed over during a pass belongs to the next one, so a held append waits for no more than
/// the rounds that waited when its pass began.
@Suite struct ReplicationPassTests {
    final class Events: Sendable {
        let entries = Mutex<[String]>([])
        func add(_ entry: String) { entries.withLock { $0.append(entry) } }
    }

    @Test func roundsFollowedInTheirPassHoldTheirAppendsUntilItEnds() throws {
        let events = Events()
        let recording = Atomic<Bool>(false)
        let gateEntered = DispatchSemaphore(value: 0)
        let gateOpen = DispatchSemaphore(value: 0)
        let holdGate = Atomic<Bool>(false)
        // Set once the store is open: a's append (made on the shared thread, in a's turn) hands
        // d a write, which must wait for the next pass.
        let duringA = Mutex<(@Sendable () -> Void)?>(nil)
        var configuration = StoreConfiguration()
        configuration.replication = { name in
            ReplicationSink(
                epoch: 1,
                timedAppend: { _, _, timing, completion in
                    if name == "gate", holdGate.exchange(false, ordering: .relaxed) {
                        gateEntered.signal()
                        gateOpen.wait()
                    }
                    if recording.load(ordering: .relaxed) { events.add("\(name):\(timing)") }
                    if name == "a",
                        let write = duringA.withLock({ body in
                            defer { body = nil }; return body
                        })
                    {
                        write()
                    }
                    completion(nil)
                }
            )
        }
        configuration.replicatedPassEnded = {
            if recording.load(ordering: .relaxed) { events.add("end") }
        }
        let temp = try TemporaryStore(configuration: configuration)
        defer { temp.destroy() }
        let names = ["gate", "a", "b", "c", "d"]
        let namespaces = try Dictionary(uniqueKeysWithValues: names.map { ($0, try temp.store.namespace($0)) })
        let done = DispatchGroup()
        let one = try value("1")
        @Sendable func write(_ name: String) {
            done.enter()
            namespaces[name]!.write(Write(.set(path("x"), one))) { result in
                if case .failure(let error) = result { Issue.record("\(name): \(error)") }
                done.leave()
            }
        }
        // Each namespace written once before, alone: nothing of opening is in what follows.
        for name in names {
            write(name)
            done.wait()
        }
        recording.store(true, ordering: .relaxed)
        duringA.withLock { $0 = { write("d") } }
        // The gate's round holds the thread while a, b and c hand it their rounds, in order.
        holdGate.store(true, ordering: .relaxed)
        write("gate")
        gateEntered.wait()
        write("a")
        write("b")
        write("c")
        gateOpen.signal()
        done.wait()
        #expect(
            events.entries.withLock { $0 } == [
                "gate:now",  // alone in its pass
                "a:afterPass", "b:afterPass", "c:now", "end",  // one pass: the gate's followers
                "d:now",  // handed during that pass: the next one, alone
            ]
        )
    }
}
