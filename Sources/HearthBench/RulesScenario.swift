import Foundation
import HearthCore
import HearthRules

/// `--scenario rules`: the cost of evaluating the shipped security rules, in process (no server):
/// decisions per second and µs per decision for the chat app's hot paths, against an in-memory
/// database shaped like `seed/fireside.json` (profiles, private chats and groups, members,
/// messages, chat lists, unread totals), scaled up. Each decision is best of `runs` timed loops
/// of `iterations`, cycling through 1,024 precomputed (user, chat) pairs.
struct RulesScenario {
    /// The rules file (`rules/database.rules.json` from the repository root by default).
    var rulesFile: String
    /// The storage rules file (`rules/storage.rules` from the repository root by default).
    var storageRulesFile = "rules/storage.rules"
    var users = 10_000
    var chats = 2_000
    var messagesPerChat = 20
    var iterations: Int
    var runs: Int
    /// µs per decision the message write and the chat-list read must stay under (issue 4).
    var targetUs = 5.0

    func run() throws -> RulesReport {
        let source: String
        do {
            source = try String(contentsOfFile: rulesFile, encoding: .utf8)
        } catch {
            throw BenchError("rules: cannot read '\(rulesFile)' (run from the repository root or pass --rules-file)")
        }
        let program: RuleProgram
        switch RulesDocument.compile(source: source, fileName: rulesFile) {
        case .success(let p): program = p
        case .failure(let diagnostics): throw BenchError("rules: \(rulesFile) does not compile:\n\(diagnostics)")
        }
        progress("rules: building \(users) users, \(chats) chats, \(chats * messagesPerChat) messages in memory")
        let data = RulesBenchData(users: users, chats: chats, messagesPerChat: messagesPerChat)
        let current = RuleMemorySource(root: data.root)
        let now = data.now
        let samples = data.samples(1_024)

        // Message writes: a member pushes a text message with the server time into their chat.
        // Boxed, so that the timed loop borrows a prepared write instead of copying its path,
        // auth and overlay (a copy of the tuple was ~5 % of the measured time).
        let writes = samples.map { sample -> PreparedWrite in
            let target = DataPath(keys: [ChildKey("messages"), ChildKey(sample.chat), ChildKey(sample.pushID)])
            let message = Node.children(
                Children(unsorted: [
                    (ChildKey("sender"), .leaf(.string(sample.member), priority: nil)),
                    (ChildKey("kind"), .leaf(.string("text"), priority: nil)),
                    (ChildKey("text"), .leaf(.string("See you at 7 at the usual place?"), priority: nil)),
                    (ChildKey("sentAt"), .leaf(.number(now), priority: nil)),
                ]),
                priority: nil
            )
            return PreparedWrite(
                target: target,
                auth: RuleAuth(uid: sample.member),
                newRoot: RuleOverlaySource(base: current, writes: [(target, message)])
            )
        }
        let chatList = RuleQuery(Query(order: .child(DataPath(keys: [ChildKey("lastMessageAt")])), limit: .last(20)))
        let messageList = RuleQuery(Query(order: .child(DataPath(keys: [ChildKey("sentAt")])), limit: .last(50)))
        let reads = samples.map { sample in
            (
                auth: RuleAuth(uid: sample.member),
                chatList: DataPath(keys: [ChildKey("userChats"), ChildKey(sample.member)]),
                messages: DataPath(keys: [ChildKey("messages"), ChildKey(sample.chat)]),
                profile: DataPath(keys: [ChildKey("users"), ChildKey(sample.otherUser)])
            )
        }

        var decisions: [RulesDecisionReport] = []
        decisions.append(
            measure("message-write", "/messages/$chatId/<push id> (write cascade, membership lookup, 6 .validate)", 5.0)
            {
                let write = writes[$0 & 1_023]
                return program.canWrite(
                    path: write.target,
                    auth: write.auth,
                    root: current,
                    newRoot: write.newRoot,
                    now: now
                ).allowed
            }
        )
        decisions.append(
            measure("chat-list-read", "/userChats/$uid ordered by lastMessageAt, limitToLast 20", 5.0) {
                let r = reads[$0 & 1_023]
                return program.canRead(path: r.chatList, auth: r.auth, root: current, now: now, query: chatList).allowed
            }
        )
        decisions.append(
            measure("message-list-read", "/messages/$chatId ordered by sentAt, limitToLast 50 (membership lookup)", nil)
            {
                let r = reads[$0 & 1_023]
                return program.canRead(path: r.messages, auth: r.auth, root: current, now: now, query: messageList)
                    .allowed
            }
        )
        decisions.append(
            measure("profile-read", "/users/$uid of another user", nil) {
                let r = reads[$0 & 1_023]
                return program.canRead(path: r.profile, auth: r.auth, root: current, now: now).allowed
            }
        )
        decisions += try storageDecisions(data: data, samples: samples, now: now)
        return RulesReport(
            rulesFile: rulesFile,
            users: users,
            chats: chats,
            messages: chats * messagesPerChat,
            iterations: iterations,
            runs: runs,
            decisions: decisions,
            meetsTarget: decisions.allSatisfy { $0.meetsTarget ?? true }
        )
    }

    /// The shipped storage rules (`storageRulesFile`): an avatar upload by its owner, and a
    /// chat attachment read by a member (a `database.exists` of the membership).
    private func storageDecisions(
        data: RulesBenchData,
        samples: [RulesBenchData.Sample],
        now: Double
    ) throws -> [RulesDecisionReport] {
        let source: String
        do {
            source = try String(contentsOfFile: storageRulesFile, encoding: .utf8)
        } catch {
            throw BenchError("rules: cannot read '\(storageRulesFile)' (run from the repository root)")
        }
        let rules: StorageRules
        switch StorageRules.compile(source: source, fileName: storageRulesFile) {
        case .success(let compiled): rules = compiled
        case .failure(let diagnostics): throw BenchError("rules: \(storageRulesFile) does not compile:\n\(diagnostics)")
        }
        let database = StorageRulesTree(root: data.root)
        let bucket = "hearth.appspot.com"
        let uploads = samples.map { sample in
            StorageRuleRequest(
                method: .create,
                bucket: bucket,
                name: "users/\(sample.member)/avatar.png",
                auth: RuleAuth(uid: sample.member),
                newResource: StorageRuleObject(
                    name: "users/\(sample.member)/avatar.png",
                    bucket: bucket,
                    size: 50_000,
                    timeCreated: now,
                    updated: now,
                    contentType: "image/png"
                ),
                now: now
            )
        }
        let reads = samples.map { sample in
            StorageRuleRequest(
                method: .get,
                bucket: bucket,
                name: "chats/\(sample.chat)/photo.jpg",
                auth: RuleAuth(uid: sample.member),
                resource: StorageRuleObject(
                    name: "chats/\(sample.chat)/photo.jpg",
                    bucket: bucket,
                    size: 200_000,
                    timeCreated: now,
                    updated: now,
                    contentType: "image/jpeg"
                ),
                now: now
            )
        }
        return [
            measure("storage-avatar-create", "storage: users/{uid}/avatar.png upload by its owner (image, size)", nil) {
                rules.decide(uploads[$0 & 1_023]).allowed
            },
            measure(
                "storage-attachment-read",
                "storage: chats/{chatId}/photo.jpg read by a member (database.exists)",
                nil
            ) {
                rules.decide(reads[$0 & 1_023], database: database).allowed
            },
        ]
    }

    /// Best and median µs per decision over `runs` loops; every decision must be allowed.
    private func measure(
        _ name: String,
        _ description: String,
        _ target: Double?,
        _ decide: (Int) -> Bool
    ) -> RulesDecisionReport {
        // Warm-up (and check that the shipped rules allow the operation).
        var allowed = 0
        for i in 0..<10_000 where decide(i) { allowed += 1 }
        var perRun: [Double] = []
        for _ in 0..<runs {
            let start = DispatchTime.now().uptimeNanoseconds
            for i in 0..<iterations where decide(i) { allowed += 1 }
            let nanos = DispatchTime.now().uptimeNanoseconds - start
            perRun.append(Double(nanos) / 1_000 / Double(iterations))
        }
        let denied = 10_000 + runs * iterations - allowed
        let sorted = perRun.sorted()
        let best = sorted[0]
        progress("rules: \(name): \(r3(best)) µs per decision (best of \(runs))")
        return RulesDecisionReport(
            name: name,
            operation: description,
            usPerDecision: r3(best),
            medianUsPerDecision: r3(sorted[sorted.count / 2]),
            decisionsPerS: (1_000_000 / best).rounded(),
            denied: denied,
            targetUs: target,
            meetsTarget: target.map { best <= $0 && denied == 0 }
        )
    }

    private func r3(_ x: Double) -> Double { (x * 1000).rounded() / 1000 }
}

/// One message write of the rules scenario, prepared before the timed loops.
private final class PreparedWrite {
    let target: DataPath
    let auth: RuleAuth
    let newRoot: RuleOverlaySource

    init(target: DataPath, auth: RuleAuth, newRoot: RuleOverlaySource) {
        self.target = target
        self.auth = auth
        self.newRoot = newRoot
    }
}

struct RulesReport: Encodable, Sendable {
    var rulesFile: String
    var users: Int
    var chats: Int
    var messages: Int
    var iterations: Int
    var runs: Int
    var decisions: [RulesDecisionReport]
    var meetsTarget: Bool
}

struct RulesDecisionReport: Encodable, Sendable {
    var name: String
    var operation: String
    /// Best of the runs.
    var usPerDecision: Double
    var medianUsPerDecision: Double
    var decisionsPerS: Double
    /// Decisions that were denied (should be 0: every sample is a legitimate operation).
    var denied: Int
    var targetUs: Double?
    var meetsTarget: Bool?
}

/// The `--scenario rules` part of the printed JSON object, next to the other scenarios'.
struct BenchOutputWithRules: Encodable {
    var output: BenchOutput
    var rules: RulesReport?

    private enum Keys: String, CodingKey {
        case rules
    }

    func encode(to encoder: Encoder) throws {
        try output.encode(to: encoder)
        var container = encoder.container(keyedBy: Keys.self)
        try container.encodeIfPresent(rules, forKey: .rules)
    }
}

/// A chat database shaped like `seed/fireside.json`, generated deterministically.
struct RulesBenchData {
    struct Sample {
        var chat: String
        var member: String
        var otherUser: String
        var pushID: String
    }

    let root: Node
    /// The `now` of every decision (push ids and timestamps are around it).
    let now: Double
    private let chatMembers: [(chat: String, members: [String])]
    private let userIDs: [String]

    init(users: Int, chats: Int, messagesPerChat: Int) {
        let now = 1_700_000_000_000.0
        self.now = now
        var rng = SplitMix64(seed: 42)
        let uids = (0..<users).map { i in "u\(String(i, radix: 36))Qx7\(String(rng.next() % 1_000_000, radix: 36))" }
        userIDs = uids
        func leaf(_ s: String) -> Node { .leaf(.string(s), priority: nil) }
        func leaf(_ n: Double) -> Node { .leaf(.number(n), priority: nil) }
        func object(_ pairs: [(String, Node)]) -> Node {
            .children(Children(unsorted: pairs.map { (ChildKey($0.0), $0.1) }), priority: nil)
        }
        var profiles: [(String, Node)] = []
        for (i, uid) in uids.enumerated() {
            profiles.append(
                (
                    uid,
                    object([
                        ("displayName", leaf("User \(i)")), ("phoneNumber", leaf("+1415555\(1000 + i % 9000)")),
                        ("email", leaf("user\(i)@example.com")),
                        ("status", leaf("Hey there! I am using FiresideChat.")),
                        ("photoUrl", leaf("https://cdn.example.com/avatars/\(uid).jpg")),
                        ("createdAt", leaf(now - 86_400_000 * Double(i % 300 + 1))),
                    ])
                )
            )
        }
        var chatNodes: [(String, Node)] = []
        var memberNodes: [(String, Node)] = []
        var messageNodes: [(String, Node)] = []
        var userChats: [String: [(String, Node)]] = [:]
        var pairs: [(chat: String, members: [String])] = []
        for c in 0..<chats {
            let chat = "-Nc\(String(c, radix: 36))" + String(repeating: "x", count: 10)
            let group = c % 4 == 0
            let count = group ? 3 + Int(rng.next() % 6) : 2
            var members: [String] = []
            while members.count < count {
                let uid = uids[Int(rng.next() % UInt64(users))]
                if !members.contains(uid) { members.append(uid) }
            }
            pairs.append((chat, members))
            chatNodes.append(
                (
                    chat,
                    object(
                        [
                            ("type", leaf(group ? "group" : "private")), ("owner", leaf(members[0])),
                            ("createdAt", leaf(now)),
                        ]
                            + (group ? [("name", leaf("Group \(c)"))] : [])
                    )
                )
            )
            memberNodes.append(
                (
                    chat,
                    object(
                        members.enumerated().map {
                            (
                                $0.element,
                                object([("role", leaf($0.offset == 0 ? "owner" : "member")), ("joinedAt", leaf(now))])
                            )
                        }
                    )
                )
            )
            var messages: [(String, Node)] = []
            for m in 0..<messagesPerChat {
                messages.append(
                    (
                        "-Nm\(String(c, radix: 36))x\(String(m, radix: 36))",
                        object([
                            ("sender", leaf(members[m % members.count])), ("kind", leaf("text")),
                            ("text", leaf("Message \(m) in chat \(c)")),
                            ("sentAt", leaf(now - Double(1000 * (messagesPerChat - m)))),
                        ])
                    )
                )
            }
            messageNodes.append((chat, object(messages)))
            for uid in members {
                userChats[uid, default: []].append(
                    (
                        chat,
                        object([
                            ("unread", leaf(Double(c % 3))), ("lastMessageAt", leaf(now - 1000)),
                            ("name", leaf("Chat \(c)")),
                        ])
                    )
                )
            }
        }
        chatMembers = pairs
        root = object([
            ("users", object(profiles)), ("chats", object(chatNodes)), ("members", object(memberNodes)),
            ("messages", object(messageNodes)), ("userChats", object(userChats.map { ($0.key, object($0.value)) })),
            ("unreadTotals", object(userChats.map { ($0.key, leaf(Double($0.value.count))) })),
        ])
    }

    /// `count` (member, chat) pairs with another user to read the profile of and a fresh push id.
    func samples(_ count: Int) -> [Sample] {
        var rng = SplitMix64(seed: 7)
        return (0..<count).map { i in
            let (chat, members) = chatMembers[Int(rng.next() % UInt64(chatMembers.count))]
            return Sample(
                chat: chat,
                member: members[Int(rng.next() % UInt64(members.count))],
                otherUser: userIDs[Int(rng.next() % UInt64(userIDs.count))],
                pushID: "-NzBench" + String(format: "%012d", i)
            )
        }
    }
}
