import Testing

/// `GET /.settings/namespaces.json`: the admin lists every database the server has (the
/// console's health view shows a column for each).
@Suite struct NamespacesListTests {
    @Test func theAdminListsEveryNamespaceOnDisk() async throws {
        try await TestServer.with { server in
            #expect(JSONCompare.equal(try await server.get("/.settings/namespaces"), #"{"namespaces": ["default"]}"#))
            try await server.put("/x", "1", ns: "zeta")
            try await server.put("/x", "1", ns: "alpha")
            let listed = try await server.get("/.settings/namespaces")
            #expect(JSONCompare.equal(listed, #"{"namespaces": ["alpha", "default", "zeta"]}"#), "\(listed)")
            let stranger = try await server.send("GET", "/.settings/namespaces.json")
            #expect(stranger.status == 401)
            let post = try await server.send("POST", TestServer.url("/.settings/namespaces", admin: true), text: "{}")
            #expect(post.status == 405)
        }
    }
}
