import HearthCore
import Testing

@testable import HearthStore

/// The writer's invariants are preconditions: breaking one stops the process rather than
/// writing something planned against the wrong state.
@Suite struct WriteRoundTests {
    @Test func onlyAJobStartedWithStagingMayStage() async {
        await #expect(processExitsWith: .failure) {
            let temp = try! TemporaryStore()
            let ns = try! temp.store.namespace("default")
            _ = try? await ns.writer.perform { round in
                round.stage(WriteBatch(), touching: []) {
                    CommittedWrite(sequence: $0, location: .root, kind: .set(nil))
                }
            }
        }
    }

    @Test func aJobCannotCommitOnItsOwnWhileWritesAreStaged() async {
        await #expect(processExitsWith: .failure) {
            let temp = try! TemporaryStore()
            let ns = try! temp.store.namespace("default")
            try! await ns.set("registered", "true")
            await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                ns.writer.perform(
                    staging: true,
                    { round in
                        let describe = { CommittedWrite(sequence: $0, location: .root, kind: .set(nil)) }
                        _ = round.stage(WriteBatch(), touching: [], as: describe)
                        _ = try round.commit(WriteBatch(), as: describe)
                    },
                    completion: { _ in done.resume() }
                )
            }
        }
    }
}
