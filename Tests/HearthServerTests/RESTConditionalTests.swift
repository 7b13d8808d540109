import Foundation
import Testing

/// ETags, `if-match` (412) and `if-none-match` (304).
struct RESTConditionalTests {
    @Test func etagRoundTrip() async throws {
        try await TestServer.with { server in
            try await server.put("/a", #"{"b":1}"#)
            let admin = "auth=\(TestServer.adminSecret)"
            let get = try await server.send("GET", "/a.json?\(admin)", headers: [("X-Firebase-ETag", "true")])
            let etag = try #require(get.headers.first(name: "ETag"))
            #expect(!etag.isEmpty)

            let noETag = try await server.send("GET", "/a.json?\(admin)")
            #expect(noETag.headers.first(name: "ETag") == nil)

            let stale = try await server.send(
                "PUT",
                "/a.json?\(admin)",
                headers: [("if-match", "bogus")],
                text: #"{"b":2}"#
            )
            #expect(stale.status == 412)
            #expect(JSONCompare.equal(stale.body, #"{"b":1}"#))
            #expect(stale.headers.first(name: "ETag") == etag)
            #expect(JSONCompare.equal(try await server.get("/a"), #"{"b":1}"#))

            let fresh = try await server.send(
                "PUT",
                "/a.json?\(admin)",
                headers: [("if-match", etag)],
                text: #"{"b":2}"#
            )
            #expect(fresh.status == 200)
            #expect(JSONCompare.equal(try await server.get("/a"), #"{"b":2}"#))
            #expect(fresh.headers.first(name: "ETag") != nil)
            #expect(fresh.headers.first(name: "ETag") != etag)

            let deleteStale = try await server.send("DELETE", "/a.json?\(admin)", headers: [("if-match", etag)])
            #expect(deleteStale.status == 412)
        }
    }

    @Test func nullETag() async throws {
        try await TestServer.with { server in
            let admin = "auth=\(TestServer.adminSecret)"
            let get = try await server.send("GET", "/new.json?\(admin)", headers: [("X-Firebase-ETag", "true")])
            #expect(get.headers.first(name: "ETag") == "null_etag")
            let create = try await server.send(
                "PUT",
                "/new.json?\(admin)",
                headers: [("if-match", "null_etag")],
                text: "1"
            )
            #expect(create.status == 200)
            let again = try await server.send(
                "PUT",
                "/new.json?\(admin)",
                headers: [("if-match", "null_etag")],
                text: "2"
            )
            #expect(again.status == 412)
            #expect(again.body.trimmingCharacters(in: .whitespacesAndNewlines) == "1")
        }
    }

    @Test func ifNoneMatch() async throws {
        try await TestServer.with { server in
            try await server.put("/a", "1")
            let admin = "auth=\(TestServer.adminSecret)"
            let get = try await server.send("GET", "/a.json?\(admin)", headers: [("X-Firebase-ETag", "true")])
            let etag = try #require(get.headers.first(name: "ETag"))
            let same = try await server.send("GET", "/a.json?\(admin)", headers: [("if-none-match", etag)])
            #expect(same.status == 304)
            #expect(same.body.isEmpty)
            let other = try await server.send("GET", "/a.json?\(admin)", headers: [("if-none-match", "x")])
            #expect(other.status == 200)
            #expect(other.body == "1")
        }
    }
}
