import Foundation
import HearthCore
import HearthTestSupport
import Testing

@testable import HearthStore

/// LevelDB's error texts as the causes and sentences users get (docs/disk-faults.md).
@Suite struct StorageFaultTests {
    @Test func leveldbErrorsAreNamedByTheirCause() {
        let cases: [(String, StorageFault.Cause)] = [
            ("IO error: /d/db/000005.log: No space left on device", .diskFull),
            ("IO error: /d/db/LOCK: Read-only file system", .readOnly),
            ("IO error: /d/db/000005.log: Input/output error", .ioError),
            ("IO error: /d/db/000005.log: Permission denied", .permissionDenied),
            ("Corruption: block checksum mismatch: /d/db/000005.ldb", .damaged),
            ("Corruption: 1 missing files; e.g.: /d/db/000005.ldb", .damaged),
            ("Invalid argument: something else", .other),
        ]
        for (text, cause) in cases {
            #expect(StorageFault(text).cause == cause, "\(text)")
        }
        let refusal = StorageFault("IO error: /d/db/000005.log: No space left on device").writeRefusal()
        #expect(refusal.code == .storageFailure)
        #expect(refusal.message.contains("the disk is full") && refusal.message.contains("Nothing was written"))
        let damage = StorageFault("Corruption: block checksum mismatch").writeRefusal()
        #expect(damage.code == .damaged && damage.message.contains("hearth doctor"))
    }

    /// Only a lock held by another process is "in use"; a lock file that cannot be created
    /// (a read-only directory) is a disk fault that says so.
    @Test func aReadOnlyLockFileIsNotTakenForALockHeldElsewhere() {
        let held = LevelDB.openFailure(
            path: "/d/db",
            message: "IO error: lock /d/db/LOCK: Resource temporarily unavailable"
        )
        #expect(held.code == .locked)
        let sameProcess = LevelDB.openFailure(
            path: "/d/db",
            message: "IO error: lock /d/db/LOCK: already held by process"
        )
        #expect(sameProcess.code == .locked)
        let readOnly = LevelDB.openFailure(path: "/d/db", message: "IO error: /d/db/LOCK: Read-only file system")
        #expect(readOnly.code == .storageFailure && readOnly.message.contains("read-only"))
        let damaged = LevelDB.openFailure(path: "/d/db", message: "Corruption: checksum mismatch")
        #expect(damaged.code == .damaged && damaged.message.contains("hearth doctor"))
    }

    /// A store whose write failed refuses writes until a probe succeeds, then reopens with
    /// everything written before the failure.
    @Test func aFailedWriteIsRefusedUntilTheStoreReopensWithEverythingBefore() throws {
        let directory = try TemporaryDirectory(prefix: "hearth-fault")
        defer { directory.remove() }
        let db = try LevelDB(path: directory.path + "/db", writeBufferSize: 1 << 20)
        defer { db.close() }
        let before = WriteBatch()
        before.put([1], [1])
        try db.write(before, sync: true)
        db.noteWriteFault(StorageFault("IO error: /x/000003.log: No space left on device"))
        // The first write after the fault reopens at once (the probe succeeds here).
        let after = WriteBatch()
        after.put([2], [2])
        try db.write(after, sync: true)
        #expect(try db.withSnapshot { [$0.get([1]), $0.get([2])] } == [[1], [2]])
        // A write in flight when another one fails is not acknowledged, even if LevelDB took it.
        let inFlight = try db.writeFaultsBeforeWriting()
        db.noteWriteFault(StorageFault("IO error: /x/000005.log: No space left on device"))
        #expect(throws: StoreError.self) { try db.refuseIfAnotherWriteFailed(since: inFlight) }
        #expect(throws: StoreError.self) { try db.writeFaultsBeforeWriting() }
        // At most one reopen a second: the one above was just now.
        #expect(throws: StoreError.self) { try db.write(after, sync: true) }
        // Damage is not repaired by a reopen: writes stay refused, reads of sound data go on.
        db.noteDamage(StorageFault("Corruption: block checksum mismatch"))
        #expect(throws: StoreError.self) { try db.write(after, sync: false) }
        #expect(try db.withSnapshot { $0.get([1]) } == [1])
    }
}
