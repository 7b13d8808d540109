/// The writes one pass of an event loop started, handed to their namespace writers together.
///
/// The loop makes a pass, hands it to each write it starts (`NamespaceEngine.write(_:as:in:)`,
/// down to the namespace's writer), then calls `finish()`: each writer then gets its share of
/// the pass at once and decides where its round runs (on its home loop, which may be this one,
/// or on its own queue when its writes turned expensive). Writes handed no pass go to the
/// writer's queue. A pass is used on the thread that made it, and finished once.
public final class WritePass {
    /// A thread that runs writers' rounds (an event loop): its identity, and how to run work on it.
    public struct Home: Sendable {
        public let id: ObjectIdentifier
        public let execute: @Sendable (@escaping @Sendable () -> Void) -> Void

        public init(id: ObjectIdentifier, execute: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void) {
            self.id = id
            self.execute = execute
        }
    }

    /// The loop making the pass.
    public let home: Home
    private var shares: [Share] = []
    private var finished = false

    public init(home: Home) {
        self.home = home
    }

    /// Adds `job` to `member`'s share of the pass.
    public func add<Member: WritePassMember>(_ job: Member.Job, for member: Member) {
        precondition(!finished, "A write pass was handed a job after it finished.")
        let id = ObjectIdentifier(member)
        for share in shares where share.id == id {
            unsafeDowncast(share, to: MemberShare<Member>.self).jobs.append(job)
            return
        }
        shares.append(MemberShare(member, first: job))
    }

    /// Hands every member its share, in the order they joined the pass.
    public func finish() {
        precondition(!finished, "A write pass was finished twice.")
        finished = true
        for share in shares { share.hand(from: home) }
        shares.removeAll()
    }

    private class Share {
        let id: ObjectIdentifier
        init(id: ObjectIdentifier) { self.id = id }
        func hand(from home: Home) {}
    }

    private final class MemberShare<Member: WritePassMember>: Share {
        let member: Member
        var jobs: [Member.Job]

        init(_ member: Member, first job: Member.Job) {
            self.member = member
            jobs = [job]
            super.init(id: ObjectIdentifier(member))
        }

        override func hand(from home: Home) {
            member.run(jobs, handedBy: home)
        }
    }
}

/// What takes part in a `WritePass`: a namespace's writer.
public protocol WritePassMember: AnyObject {
    associatedtype Job
    /// Runs `jobs`, handed over together at the end of a pass of `home`.
    func run(_ jobs: [Job], handedBy home: WritePass.Home)
}
