import Foundation
import HearthCore
import HearthTestSupport
import Testing

@testable import HearthStore

/// `BackupStream` and `BackupRestore`: a backup taken from a live store, restored into an empty
/// directory, is the store at the backup's moment.
@Suite struct BackupTests {
    static func drain(_ stream: BackupStream, chunk: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        while let next = stream.next(maxBytes: chunk) { bytes += next }
        return bytes
    }

    /// Restores `bytes` into a fresh directory, fed in pieces of `piece` bytes.
    static func restore(_ bytes: [UInt8], piece: Int) throws -> (directory: String, header: BackupHeader) {
        let directory = try TemporaryDirectory(prefix: "hearth-restore").path
        let restore = try BackupRestore(directory: directory)
        var start = 0
        while start < bytes.count {
            let end = min(bytes.count, start + piece)
            try restore.consume(Array(bytes[start..<end]))
            start = end
        }
        return (directory, try restore.finish())
    }

    @Test func aRestoredBackupIsTheStoreAccountsAndFilesAtItsMoment() async throws {
        let temp = try TemporaryStore()
        defer { temp.destroy() }
        let ns = try temp.store.namespace("default")
        try await ns.setIndexes([IndexSpec(location: [.key(ChildKey("list"))], indexed: .child(path("v")))])
        try await ns.set("list", #"{"a":{"v":3},"b":{"v":1},"c":{"v":2}}"#)
        let other = try temp.store.namespace("other")
        try await other.set("x", #""y""#)
        try await other.set("x", #""z""#)
        let accountsDirectory = try TemporaryDirectory(prefix: "hearth-accounts").path
        defer { try? FileManager.default.removeItem(atPath: accountsDirectory) }
        let accounts = try KeyValueDatabase(path: accountsDirectory + "/db")
        try accounts.apply([(Array("a/u1".utf8), Array(#"{"email":"ada@example.com"}"#.utf8))], sync: false)
        let stream = try BackupStream(
            store: temp.store,
            accounts: accounts,
            files: [("jwt-secret", Array("secret".utf8))]
        )
        #expect(stream.header.namespaces == ["default": 1, "other": 2])
        // Written after the snapshot: not in the backup.
        try await ns.set("list/d", #"{"v":0}"#)
        let bytes = Self.drain(stream, chunk: 64)
        accounts.close()

        let (directory, header) = try Self.restore(bytes, piece: 37)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(header == stream.header)
        let restored = try Store.open(directory: directory)
        defer { restored.close() }
        let restoredDefault = try restored.namespace("default")
        #expect(try await restoredDefault.json("list") == #"{"a":{"v":3},"b":{"v":1},"c":{"v":2}}"#)
        #expect(try await restoredDefault.read { $0.sequence } == 1)
        let ordered = try await restoredDefault.read { try $0.query(at: path("list"), Query(order: .child(path("v")))) }
        #expect(ordered.map(\.key.string) == ["b", "c", "a"])
        #expect(try await restored.namespace("other").json("x") == #""z""#)
        let restoredAccounts = try KeyValueDatabase(path: directory + "/accounts/db")
        defer { restoredAccounts.close() }
        #expect(
            try restoredAccounts.get(Array("a/u1".utf8)).map { String(decoding: $0, as: UTF8.self) }
                == #"{"email":"ada@example.com"}"#
        )
        let secret = directory + "/jwt-secret"
        #expect(FileManager.default.contents(atPath: secret) == Data("secret".utf8))
        let permissions = try FileManager.default.attributesOfItem(atPath: secret)[.posixPermissions] as? Int
        #expect(permissions == 0o600)
    }

    @Test func aBackupTakenUnderWritesHoldsExactlyTheWritesUpToItsSequenceNumber() async throws {
        let temp = try TemporaryStore()
        defer { temp.destroy() }
        let ns = try temp.store.namespace("default")
        // Each write puts log/i and last = i together.
        let writer = Task {
            for i in 1...400 {
                _ = try await ns.update("", [("log/w\(i)", "\(i)"), ("last", "\(i)")])
            }
        }
        while try await ns.read({ $0.sequence }) < 50 { try await Task.sleep(for: .milliseconds(1)) }
        let stream = try BackupStream(store: temp.store, accounts: nil)
        let bytes = Self.drain(stream, chunk: 512)
        try await writer.value
        let sequence = try #require(stream.header.namespaces["default"])
        #expect(sequence >= 50)
        let (directory, _) = try Self.restore(bytes, piece: 4096)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let restored = try Store.open(directory: directory)
        defer { restored.close() }
        let restoredNS = try restored.namespace("default")
        #expect(try await restoredNS.read { $0.sequence } == sequence)
        #expect(try await restoredNS.json("last") == "\(sequence)")
        let log = try #require(try await restoredNS.node("log"))
        guard case .children(let children, _) = log else {
            Issue.record("log is not an object")
            return
        }
        #expect(children.count == Int(sequence))
    }

    @Test func aDamagedBackupIsRefused() async throws {
        let temp = try TemporaryStore()
        defer { temp.destroy() }
        try await temp.store.namespace("default").set("a", #"{"b":1,"c":"text"}"#)
        let bytes = Self.drain(try BackupStream(store: temp.store, accounts: nil), chunk: 1 << 20)
        var flipped = bytes
        flipped[bytes.count / 2] ^= 0x01
        let cases: [(String, [UInt8])] = [
            ("a flipped byte", flipped),
            ("truncated", Array(bytes.dropLast(10))),
            ("not a backup", Array(#"{"a":1}"#.utf8)),
            ("bytes after its end", bytes + [0]),
        ]
        for (name, damaged) in cases {
            #expect(throws: StoreError.self, "\(name)") { _ = try Self.restore(damaged, piece: 100) }
        }
    }

    @Test func aRestoreGoesOnlyIntoAnEmptyDirectory() throws {
        let directory = try TemporaryDirectory(prefix: "hearth-restore").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        FileManager.default.createFile(atPath: directory + "/something", contents: Data())
        #expect(throws: StoreError.self) { _ = try BackupRestore(directory: directory) }
    }
}
