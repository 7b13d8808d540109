import Testing

@testable import HearthServer

/// The presence bookkeeping without sockets or store: one write per real transition.
struct PresenceLedgerTests {
    typealias Key = PresenceLedger.Key
    typealias Transition = PresenceLedger.Transition
    let ada = Key(namespace: "default", uid: "ada")
    let bob = Key(namespace: "default", uid: "bob")

    @Test func theFirstConnectionAndTheLastEndAreTheOnlyTransitions() {
        var ledger = PresenceLedger()
        let step1 = ledger.connect(ada)  // wakes the flusher
        #expect(step1)
        let step2 = ledger.connect(ada)
        #expect(!step2)
        let step3 = ledger.takeTransitions(limit: 10)
        #expect(step3 == [Transition(key: ada, online: true)])
        ledger.written([Transition(key: ada, online: true)])
        let step4 = ledger.disconnect(ada)
        #expect(!step4)
        let step5 = ledger.takeTransitions(limit: 10)
        #expect(step5 == [])
        let step6 = ledger.disconnect(ada)
        #expect(step6)
        let step7 = ledger.takeTransitions(limit: 10)
        #expect(step7 == [Transition(key: ada, online: false)])
    }

    @Test func aDropAndReconnectBetweenFlushesCostsNothing() {
        var ledger = PresenceLedger()
        _ = ledger.connect(ada)
        ledger.written(ledger.takeTransitions(limit: 10))
        _ = ledger.disconnect(ada)
        _ = ledger.connect(ada)
        let step8 = ledger.takeTransitions(limit: 10)
        #expect(step8 == [])
        // A user who came and went between two flushes was never written.
        _ = ledger.connect(bob)
        _ = ledger.disconnect(bob)
        let step9 = ledger.takeTransitions(limit: 10)
        #expect(step9 == [])
    }

    @Test func aStormIsTakenInBatchesOfTheLimit() {
        var ledger = PresenceLedger()
        let keys = (0..<5_000).map { Key(namespace: "default", uid: "u\($0)") }
        for key in keys {
            _ = ledger.connect(key)
            _ = ledger.connect(key)
        }
        ledger.written(ledger.takeTransitions(limit: 10_000))
        for key in keys {
            _ = ledger.disconnect(key)
            _ = ledger.disconnect(key)
        }
        #expect(ledger.pendingCount == 5_000)
        var batches: [Int] = []
        while true {
            let batch = ledger.takeTransitions(limit: 2_000)
            if batch.isEmpty { break }
            #expect(batch.allSatisfy { !$0.online })
            batches.append(batch.count)
            ledger.written(batch)
        }
        #expect(batches == [2_000, 2_000, 1_000])
        #expect(ledger.writtenOnline.isEmpty)
    }

    @Test func aFailedWriteIsPendingAgainAndClosingReturnsEveryoneOnline() {
        var ledger = PresenceLedger()
        _ = ledger.connect(ada)
        _ = ledger.connect(bob)
        let first = ledger.takeTransitions(limit: 1)
        #expect(first == [Transition(key: ada, online: true)])
        ledger.written(first)
        let second = ledger.takeTransitions(limit: 10)
        let step10 = ledger.failed(second)
        #expect(step10)
        let step11 = ledger.takeTransitions(limit: 10)
        #expect(step11 == second)
        let step12 = ledger.closeAll()
        #expect(step12 == [Transition(key: ada, online: false)])
        // After closing nothing is counted or pending.
        let step13 = ledger.connect(bob)
        #expect(!step13)
        let step14 = ledger.disconnect(ada)
        #expect(!step14)
        #expect(ledger.pendingCount == 0)
    }
}
