import HearthCore
import Testing

/// `WritePass`: each member gets its jobs once, in the order they were added, when the pass
/// finishes; members in the order they joined; nothing before `finish()`.
@Suite struct WritePassTests {
    /// Records what it was handed, and by which home.
    final class Member: WritePassMember {
        typealias Job = String
        let name: String
        let log: Log

        init(_ name: String, log: Log) {
            self.name = name
            self.log = log
        }

        func run(_ jobs: [String], handedBy home: WritePass.Home) {
            log.entries.append("\(name) \(jobs.joined(separator: ",")) from \(home.id == log.home ? "home" : "?")")
        }
    }

    final class Log {
        var entries: [String] = []
        let home: ObjectIdentifier

        init(home: ObjectIdentifier) { self.home = home }
    }

    final class Loop: Sendable {}

    @Test func membersGetTheirJobsTogetherInJoinOrderWhenThePassFinishes() {
        let loop = Loop()
        let log = Log(home: ObjectIdentifier(loop))
        let pass = WritePass(home: WritePass.Home(id: ObjectIdentifier(loop)) { _ in })
        let first = Member("a", log: log)
        let second = Member("b", log: log)
        pass.add("1", for: second)
        pass.add("2", for: first)
        pass.add("3", for: second)
        pass.add("4", for: first)
        #expect(log.entries.isEmpty)
        pass.finish()
        #expect(log.entries == ["b 1,3 from home", "a 2,4 from home"])
    }

    @Test func aPassWithoutJobsHandsNothing() {
        let loop = Loop()
        let log = Log(home: ObjectIdentifier(loop))
        WritePass(home: WritePass.Home(id: ObjectIdentifier(loop)) { _ in }).finish()
        #expect(log.entries.isEmpty)
    }
}
