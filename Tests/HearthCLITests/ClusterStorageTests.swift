import Foundation
import HearthTestSupport
import Testing

extension ClusterProcessTests {
    /// A cluster's Firebase Storage is the cluster's (the contract's "Operations" and "Storage"):
    /// an object uploaded through one node is listed, described and downloaded through every
    /// other, survives `kill -9` of the node that took it, and is deleted for every node by a
    /// delete through any; a resumable upload goes on through any node; two nodes racing on one
    /// name leave one object; a node's storage rules file holds on every node.
    @Suite("a cluster's storage")
    struct ClusterStorageTests {
        typealias Cluster = ClusterProcessTests.Cluster
        static let bucket = ProcessTestServer.bucket

        /// `count` bytes of printable text, different for each `seed`.
        static func text(_ count: Int, seed: Int) -> [UInt8] {
            let alphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789".utf8)
            return (0..<count).map { alphabet[($0 * 7 + seed * 13 + $0 / 1000) % alphabet.count] }
        }

        static func json(_ body: String) -> [String: Any] {
            (try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any]) ?? [:]
        }

        /// The object's metadata fields that must be the same through every node.
        static func identity(_ body: String) -> [String] {
            let json = json(body)
            return ["generation", "md5Hash", "size", "contentType", "downloadTokens"].map { "\(json[$0] ?? "nil")" }
        }

        @Test func anObjectUploadedThroughOneNodeIsEveryNodesAndOutlivesItsNode() async throws {
            let cluster = try await Cluster.start(nodes: 2)
            defer { Task { await cluster.stop() } }
            let (first, second) = (cluster.nodes[0], cluster.nodes[1])
            let small = Self.text(100, seed: 1)
            let uploaded = try await first.upload("docs%2Fnote.txt", small)
            #expect(uploaded.status == 200, "\(uploaded.body)")

            let path = "/v0/b/\(Self.bucket)/o/docs%2Fnote.txt"
            let described = try await second.storage("GET", path)
            #expect(described.status == 200, "\(described.body)")
            #expect(Self.identity(described.body) == Self.identity(uploaded.body))
            let downloaded = try await second.storage("GET", path + "?alt=media")
            #expect(downloaded.status == 200)
            #expect(downloaded.body == String(decoding: small, as: UTF8.self))
            // The second node fetched the bytes from PostgreSQL and keeps them as a cache.
            #expect(second.storageFiles("objects").count == 1)
            #expect(try await second.objectNames() == ["docs/note.txt"])
            // The admin SDKs' JSON API sees it too, and a copy through the second node has the bytes.
            let listed = try await second.storage("GET", "/storage/v1/b/\(Self.bucket)/o")
            #expect(listed.body.contains(#""name":"docs/note.txt""#), "\(listed.body)")
            let copied = try await second.storage(
                "POST",
                "/storage/v1/b/\(Self.bucket)/o/docs%2Fnote.txt/copyTo/b/\(Self.bucket)/o/docs%2Fcopy.txt"
            )
            #expect(copied.status == 200, "\(copied.body)")
            let copy = try await first.storage("GET", "/v0/b/\(Self.bucket)/o/docs%2Fcopy.txt?alt=media")
            #expect(copy.body == String(decoding: small, as: UTF8.self))
            #expect(try await first.storage("DELETE", "/v0/b/\(Self.bucket)/o/docs%2Fcopy.txt").status == 204)

            // A delete through the second node is the first node's too.
            #expect(try await second.storage("DELETE", path).status == 204)
            #expect(try await first.storage("GET", path).status == 404)
            #expect(try await first.storage("GET", path + "?alt=media").status == 404)
            #expect(try await first.objectNames() == [])

            // Acknowledged, then the node that took it dies at once: the other serves every byte
            // (several pieces in PostgreSQL).
            let large = Self.text(2_500_000, seed: 2)
            let kept = try await first.upload("big.bin", large)
            #expect(kept.status == 200, "\(kept.body)")
            await first.kill()
            let survived = try await second.storage("GET", "/v0/b/\(Self.bucket)/o/big.bin?alt=media")
            #expect(survived.status == 200)
            #expect(survived.body.utf8.count == large.count)
            #expect(survived.body == String(decoding: large, as: UTF8.self))
            let metadata = try await second.storage("GET", "/v0/b/\(Self.bucket)/o/big.bin")
            #expect(Self.identity(metadata.body) == Self.identity(kept.body))
        }

        @Test func aResumableUploadStartedThroughOneNodeIsFinishedThroughAnother() async throws {
            let cluster = try await Cluster.start(nodes: 2)
            defer { Task { await cluster.stop() } }
            let (first, second) = (cluster.nodes[0], cluster.nodes[1])
            let bytes = Self.text(300_000, seed: 3)
            let started = try await first.storage(
                "POST",
                "/v0/b/\(Self.bucket)/o?name=movies%2Fclip.txt",
                headers: [
                    ("X-Goog-Upload-Protocol", "resumable"), ("X-Goog-Upload-Command", "start"),
                    ("X-Goog-Upload-Header-Content-Length", "\(bytes.count)"),
                    ("X-Goog-Upload-Header-Content-Type", "text/plain"),
                    ("Content-Type", "application/json; charset=utf-8"),
                ],
                body: Array(#"{"metadata":{"kind":"resumable"}}"#.utf8)
            )
            #expect(started.status == 200, "\(started.body)")
            let url = try #require(started.headers["x-goog-upload-url"])
            let session = String(url.dropFirst(first.baseURL.count))

            // Every later request goes through the second node (forwarded to the session's node).
            let chunk = 262_144
            let part = try await second.storage(
                "POST",
                session,
                headers: [("X-Goog-Upload-Command", "upload"), ("X-Goog-Upload-Offset", "0")],
                body: Array(bytes[..<chunk])
            )
            #expect(part.status == 200, "\(part.body)")
            let query = try await second.storage("POST", session, headers: [("X-Goog-Upload-Command", "query")])
            #expect(query.headers["x-goog-upload-size-received"] == "\(chunk)")
            let final = try await second.storage(
                "POST",
                session,
                headers: [("X-Goog-Upload-Command", "upload, finalize"), ("X-Goog-Upload-Offset", "\(chunk)")],
                body: Array(bytes[chunk...])
            )
            #expect(final.status == 200, "\(final.body)")
            #expect(final.headers["x-goog-upload-status"] == "final")
            for node in cluster.nodes {
                let media = try await node.storage("GET", "/v0/b/\(Self.bucket)/o/movies%2Fclip.txt?alt=media")
                #expect(media.status == 200)
                #expect(media.body == String(decoding: bytes, as: UTF8.self))
            }

            // A session dies with its node: the other says so (the client starts again).
            let orphan = try await first.storage(
                "POST",
                "/v0/b/\(Self.bucket)/o?name=lost.txt",
                headers: [("X-Goog-Upload-Protocol", "resumable"), ("X-Goog-Upload-Command", "start")]
            )
            let lost = String(try #require(orphan.headers["x-goog-upload-url"]).dropFirst(first.baseURL.count))
            await first.kill()
            let gone = try await second.storage(
                "POST",
                lost,
                headers: [("X-Goog-Upload-Command", "upload, finalize"), ("X-Goog-Upload-Offset", "0")],
                body: Array("late".utf8)
            )
            #expect(gone.status == 404 || gone.status == 503, "\(gone.status) \(gone.body)")
        }

        @Test func twoNodesRacingToUploadOneNameLeaveOneObject() async throws {
            let cluster = try await Cluster.start(nodes: 2)
            defer { Task { await cluster.stop() } }
            let contents = (0..<6).map { Self.text(50_000 + $0, seed: 10 + $0) }
            let answers = try await withThrowingTaskGroup(of: Int.self) { group in
                for (index, bytes) in contents.enumerated() {
                    group.addTask { try await cluster.nodes[index % 2].upload("race.txt", bytes).status }
                }
                var all: [Int] = []
                for try await status in group { all.append(status) }
                return all
            }
            #expect(answers.allSatisfy { $0 == 200 }, "\(answers)")
            let path = "/v0/b/\(Self.bucket)/o/race.txt"
            let seen = try await cluster.nodes[0].storage("GET", path)
            let other = try await cluster.nodes[1].storage("GET", path)
            #expect(Self.identity(seen.body) == Self.identity(other.body))
            let first = try await cluster.nodes[0].storage("GET", path + "?alt=media").body
            let second = try await cluster.nodes[1].storage("GET", path + "?alt=media").body
            #expect(first == second)
            #expect(contents.contains { String(decoding: $0, as: UTF8.self) == first })
            #expect(first.utf8.count == Int(Self.json(seen.body)["size"] as? String ?? "") ?? -1)
            for node in cluster.nodes { #expect(try await node.objectNames() == ["race.txt"]) }
        }

        @Test func aSingleNodesObjectsSeedTheClusterItJoinsFirst() async throws {
            let database = try PrivatePostgres.shared.get().database()
            let directory = try TemporaryDirectory()
            var nodes: [ProcessTestServer] = []
            defer {
                Task { [nodes] in
                    for node in nodes { await node.kill() }; directory.remove()
                }
            }
            let alone = try await ProcessTestServer.start(
                dataDirectory: directory.appending("node0"),
                workingDirectory: directory.url,
                arguments: ["--jwt-secret", TestServer.jwtSecret]
            )
            let bytes = Self.text(1_200_000, seed: 5)
            let uploaded = try await alone.upload("kept.bin", bytes)
            #expect(uploaded.status == 200)
            await alone.kill()

            for index in 0..<2 {
                nodes.append(try await Cluster.startNode(index, directory: directory, database: database))
            }
            // The second node never had the object: its metadata and bytes came through PostgreSQL.
            let media = try await nodes[1].storage("GET", "/v0/b/\(Self.bucket)/o/kept.bin?alt=media")
            #expect(media.status == 200)
            #expect(media.body == String(decoding: bytes, as: UTF8.self))
            let metadata = try await nodes[1].storage("GET", "/v0/b/\(Self.bucket)/o/kept.bin")
            #expect(Self.identity(metadata.body) == Self.identity(uploaded.body))
            // A new upload gets a generation past the seeded one.
            let next = try await nodes[1].upload("next.bin", Array("n".utf8))
            let seeded = Int64(Self.json(uploaded.body)["generation"] as? String ?? "") ?? .max
            #expect((Int64(Self.json(next.body)["generation"] as? String ?? "") ?? 0) > seeded)
        }

        static func rules(_ read: String) -> String {
            """
            rules_version = '2';
            service firebase.storage {
              match /b/{bucket}/o {
                match /{all=**} { allow read: if \(read); }
              }
            }
            """
        }

        @Test func aNodesStorageRulesFileHoldsOnEveryNode() async throws {
            let database = try PrivatePostgres.shared.get().database()
            let directory = try TemporaryDirectory()
            var nodes: [ProcessTestServer] = []
            defer {
                Task { [nodes] in
                    for node in nodes { await node.kill() }; directory.remove()
                }
            }
            // Each node its own rules folder; only the first has a storage rules file.
            for index in 0..<2 {
                let folder = directory.appending("rules\(index)")
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                if index == 0 { try Data(Self.rules("true").utf8).write(to: folder.appending(path: "storage.rules")) }
                nodes.append(
                    try await Cluster.startNode(
                        index,
                        directory: directory,
                        database: database,
                        extraArguments: ["--rules", folder.appending(path: "database.rules.json").path]
                    )
                )
            }
            #expect(try await nodes[0].upload("open.txt", Array("visible".utf8)).status == 200)
            // The second node has no file: the cluster's rules (the first node's) let anyone read.
            let read = try await nodes[1].request("GET", "/v0/b/\(Self.bucket)/o/open.txt?alt=media")
            #expect(read.status == 200, "\(read.body)")
            #expect(read.body == "visible")

            // An edit of the second node's file publishes: the first node refuses reads now.
            try Data(Self.rules("false").utf8).write(to: directory.appending("rules1/storage.rules"))
            try await eventually(timeout: .seconds(10), interval: .milliseconds(100)) {
                try await nodes[0].request("GET", "/v0/b/\(Self.bucket)/o/open.txt?alt=media").status == 403
            }
            let document = try await nodes[0].storage("GET", "/.settings/storage.rules")
            #expect(document.body == Self.rules("false"))
        }
    }
}
