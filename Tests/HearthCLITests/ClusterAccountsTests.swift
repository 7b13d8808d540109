import Foundation
import HearthTestSupport
import Testing

extension ClusterProcessTests {
    /// A cluster's accounts are the cluster's (the contract's "Operations"): an account made
    /// through one node signs in through every other, an email is taken once whichever nodes race
    /// for it, a revocation through one node refuses the token on every node, and a single node's
    /// accounts seed the cluster it joins first.
    @Suite("a cluster's accounts")
    struct ClusterAccountsTests {
        typealias Cluster = ClusterProcessTests.Cluster

        static let identity = "/identitytoolkit.googleapis.com/v1/accounts"

        static func post(
            _ node: ProcessTestServer,
            _ action: String,
            _ body: String
        ) async throws -> (status: Int, json: [String: Any]) {
            let answer = try await node.request(
                "POST",
                identity + ":" + action + "?key=k",
                body: body,
                timeout: ProcessTestServer.passwordHashingTimeout
            )
            let json = (try? JSONSerialization.jsonObject(with: Data(answer.body.utf8)) as? [String: Any]) ?? [:]
            return (answer.status, json)
        }

        static func errorMessage(_ json: [String: Any]) -> String? {
            (json["error"] as? [String: Any])?["message"] as? String
        }

        @Test func anAccountMadeThroughOneNodeSignsInEverywhereAndItsRevocationHoldsEverywhere() async throws {
            let cluster = try await Cluster.start(
                nodes: 2,
                rules: #"{"rules":{".read":"auth != null",".write":"auth != null"}}"#
            )
            defer { Task { await cluster.stop() } }
            let (first, second) = (cluster.nodes[0], cluster.nodes[1])
            let token = try await first.signUp("ada@example.com", password: "first-password")

            let signIn = try await Self.post(
                second,
                "signInWithPassword",
                #"{"email":"ada@example.com","password":"first-password","returnSecureToken":true}"#
            )
            #expect(signIn.status == 200, "\(signIn.json)")
            let lookup = try await Self.post(second, "lookup", #"{"idToken":"\#(token)"}"#)
            #expect(lookup.status == 200, "\(lookup.json)")
            #expect(((lookup.json["users"] as? [[String: Any]])?.first?["email"] as? String) == "ada@example.com")

            // The token reads through both nodes (whichever owns the namespace checks it).
            for node in cluster.nodes {
                let read = try await node.request("GET", "/notes.json?auth=\(token)")
                #expect(read.status == 200, "\(read.body)")
            }

            // A password change through the second node revokes the first token on every node.
            let changed = try await Self.post(
                second,
                "update",
                #"{"idToken":"\#(token)","password":"second-password","returnSecureToken":true}"#
            )
            #expect(changed.status == 200, "\(changed.json)")
            let stale = try await Self.post(first, "lookup", #"{"idToken":"\#(token)"}"#)
            #expect(stale.status == 400)
            #expect(Self.errorMessage(stale.json) == "TOKEN_EXPIRED")
            for node in cluster.nodes {
                try await eventually(timeout: .seconds(5), interval: .milliseconds(50)) {
                    try await node.request("GET", "/notes.json?auth=\(token)").status == 401
                }
            }
            let old = try await Self.post(
                first,
                "signInWithPassword",
                #"{"email":"ada@example.com","password":"first-password"}"#
            )
            #expect(old.status == 400)
            let new = try await Self.post(
                first,
                "signInWithPassword",
                #"{"email":"ada@example.com","password":"second-password"}"#
            )
            #expect(new.status == 200, "\(new.json)")
        }

        @Test func deletingAnAccountThroughANodeThatDoesNotOwnTheChatRemovesItsDataOnTheOwner() async throws {
            let cluster = try await Cluster.start(nodes: 2)
            defer { Task { await cluster.stop() } }
            let (first, second) = (cluster.nodes[0], cluster.nodes[1])
            // The first node takes `default`; the account is deleted through the second.
            #expect(try await first.request("PUT", "/hello.json", body: "1", admin: true).status == 200)
            let owner = try await cluster.owner(of: "default")
            let (ownerNode, other) = (cluster.nodes[owner], cluster.nodes[1 - owner])
            let token = try await ownerNode.signUp("gone@example.com", password: "gone-password")
            let lookup = try await Self.post(other, "lookup", #"{"idToken":"\#(token)"}"#)
            let uid = try #require((lookup.json["users"] as? [[String: Any]])?.first?["localId"] as? String)
            #expect(
                try await first.request("PUT", "/users/\(uid).json", body: #"{"name":"Gone"}"#, admin: true).status
                    == 200
            )

            let deleted = try await Self.post(other, "delete", #"{"idToken":"\#(token)"}"#)
            #expect(deleted.status == 200, "\(deleted.json)")
            for node in [first, second] {
                let profile = try await node.request("GET", "/users/\(uid).json", admin: true)
                #expect(profile.body == "null", "\(profile.body)")
            }
            let after = try await Self.post(ownerNode, "lookup", #"{"idToken":"\#(token)"}"#)
            #expect(after.status == 400)

            // Only nodes of the cluster may ask a node to remove an account's data.
            let stranger = try await ownerNode.request(
                "POST",
                "/.well-known/hearth/cluster/account-deletion?ns=default&uid=\(uid)&handler=0",
                admin: true
            )
            #expect(stranger.status == 403)
        }

        @Test func aCallableOnTheOwnerSeesAnAccountMadeThroughAnotherNodeJustBefore() async throws {
            let cluster = try await Cluster.start(nodes: 2)
            defer { Task { await cluster.stop() } }
            #expect(try await cluster.nodes[0].request("PUT", "/hello.json", body: "1", admin: true).status == 200)
            let owner = try await cluster.owner(of: "default")
            let (ownerNode, other) = (cluster.nodes[owner], cluster.nodes[1 - owner])
            let signedUp = try await Self.post(
                ownerNode,
                "signUp",
                #"{"email":"blocker@example.com","password":"blocker-password","returnSecureToken":true}"#
            )
            let blocker = try #require(signedUp.json["idToken"] as? String)
            let blockerID = try #require(signedUp.json["localId"] as? String)
            let named = try await ownerNode.request(
                "PUT",
                "/users/\(blockerID).json",
                body: #"{"displayName":"Blocker"}"#,
                admin: true
            )
            #expect(named.status == 200)
            for round in 0..<3 {
                // Made through the other node, then at once named in a callable the owner runs.
                let made = try await Self.post(
                    other,
                    "signUp",
                    #"{"email":"new\#(round)@example.com","password":"new-password","returnSecureToken":true}"#
                )
                let uid = try #require(made.json["localId"] as? String)
                let profile = try await ownerNode.request(
                    "PUT",
                    "/users/\(uid).json",
                    body: #"{"displayName":"New \#(round)"}"#,
                    admin: true
                )
                #expect(profile.status == 200)
                let answer = try await ownerNode.request(
                    "POST",
                    "/demo-project/us-central1/blockUser",
                    body: #"{"data":{"uid":"\#(uid)"}}"#,
                    headers: [("Authorization", "Bearer \(blocker)")]
                )
                #expect(answer.status == 200, "\(answer.body)")
            }
        }

        @Test func anEmailIsTakenOnceWhicheverNodesRaceForIt() async throws {
            let cluster = try await Cluster.start(nodes: 2)
            defer { Task { await cluster.stop() } }
            let answers = try await withThrowingTaskGroup(of: (Int, String?).self) { group in
                for attempt in 0..<4 {
                    group.addTask {
                        let answer = try await Self.post(
                            cluster.nodes[attempt % 2],
                            "signUp",
                            #"{"email":"race@example.com","password":"password-\#(attempt)"}"#
                        )
                        return (answer.status, Self.errorMessage(answer.json))
                    }
                }
                var all: [(Int, String?)] = []
                for try await answer in group { all.append(answer) }
                return all
            }
            #expect(answers.filter { $0.0 == 200 }.count == 1, "\(answers)")
            #expect(answers.filter { $0.1 == "EMAIL_EXISTS" }.count == 3, "\(answers)")
            // Every node lists the one account.
            for node in cluster.nodes {
                let list = try await node.request(
                    "GET",
                    Self.identity + ":batchGet?maxResults=10",
                    headers: [("Authorization", "Bearer test-admin-secret")]
                )
                #expect(list.status == 200)
                let users = (try? JSONSerialization.jsonObject(with: Data(list.body.utf8)) as? [String: Any])?["users"]
                let emails = (users as? [[String: Any]])?.compactMap { $0["email"] as? String }
                #expect(emails == ["race@example.com"], "\(list.body)")
            }
        }

        @Test func aSingleNodesAccountsSeedTheClusterItJoinsFirst() async throws {
            let database = try PrivatePostgres.shared.get().database()
            let directory = try TemporaryDirectory()
            defer { directory.remove() }
            let alone = try await ProcessTestServer.start(
                dataDirectory: directory.appending("node0"),
                workingDirectory: directory.url,
                arguments: ["--jwt-secret", TestServer.jwtSecret]
            )
            _ = try await alone.signUp("grace@example.com", password: "kept-password")
            await alone.kill()

            var nodes: [ProcessTestServer] = []
            defer { Task { [nodes] in for node in nodes { await node.kill() } } }
            for index in 0..<2 {
                nodes.append(try await Cluster.startNode(index, directory: directory, database: database))
            }
            let signIn = try await Self.post(
                nodes[1],
                "signInWithPassword",
                #"{"email":"grace@example.com","password":"kept-password"}"#
            )
            #expect(signIn.status == 200, "\(signIn.json)")
            // The second node had no accounts: it follows the cluster's, and seeds nothing.
            let taken = try await Self.post(
                nodes[1],
                "signUp",
                #"{"email":"grace@example.com","password":"other-one"}"#
            )
            #expect(Self.errorMessage(taken.json) == "EMAIL_EXISTS")

            // A node's copy is not changed behind the cluster's back: the CLI refuses to write it.
            await nodes[1].kill()
            let refused = try await HearthProcess.run(
                [
                    "users", "create", "new@example.com", "--password", "secret-one", "--data",
                    directory.appending("node1").path,
                ]
            )
            #expect(refused.status != 0)
            #expect(refused.stderr.contains("copy of a cluster's"), "\(refused.stderr)")
            let listed = try await HearthProcess.run(["users", "list", "--data", directory.appending("node1").path])
            #expect(listed.status == 0)
            #expect(listed.stdout.contains("grace@example.com"))
        }
    }
}
