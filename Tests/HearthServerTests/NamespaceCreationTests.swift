import Foundation
import HearthStore
import HearthTestSupport
import Testing

/// A namespace exists once an admin or a permitted write creates it: requests for unknown
/// namespaces that read, or are refused, persist nothing, and the next start loads nothing for
/// them.
struct NamespaceCreationTests {
    static let probes = 300

    /// A data and rules folder shared by two runs of the server.
    struct Folder {
        let url: URL
        var data: String { url.appendingPathComponent("data").path }
        var rulesFile: String { url.appendingPathComponent("rules/database.rules.json").path }

        static func with(_ body: (Folder) async throws -> Void) async throws {
            let temporary = try TemporaryDirectory(prefix: "hearth-namespace-creation")
            defer { temporary.remove() }
            let url = temporary.url
            try FileManager.default.createDirectory(
                at: url.appendingPathComponent("rules"),
                withIntermediateDirectories: true
            )
            try await body(Folder(url: url))
        }

        func serve(_ body: (TestServer) async throws -> Void) async throws {
            try await TestServer.with(
                prepare: { configuration, _ in
                    configuration.dataDirectory = data
                    configuration.rulesFile = rulesFile
                },
                run: body
            )
        }

        /// The namespaces on disk (with the server stopped).
        func namespacesOnDisk() throws -> Set<String> {
            let store = try Store.open(directory: data)
            defer { store.close() }
            return Set(try store.namespaceNames())
        }

        func writeRules(_ text: String, namespace: String) throws {
            try text.write(
                to: url.appendingPathComponent("rules/\(namespace).rules.json"),
                atomically: true,
                encoding: .utf8
            )
        }
    }

    @Test func refusedAndReadingRequestsPersistNoNamespaceAcrossARestart() async throws {
        try await Folder.with { folder in
            // `open` lets anyone write `/notes`; `guarded` has rules but refuses anonymous writes.
            try folder.writeRules(#"{"rules": {"notes": {".read": true, ".write": true}}}"#, namespace: "open")
            try folder.writeRules(#"{"rules": {".read": true, "x": {".indexOn": "v"}}}"#, namespace: "guarded")
            try await folder.serve { server in
                for index in 0..<Self.probes {
                    let reply = try await server.send("GET", "/a.json?ns=probe-\(index)")
                    #expect(reply.status == 401, "probe-\(index): \(reply.status) \(reply.body)")
                }
                for index in 0..<20 {
                    #expect(try await server.send("PUT", "/a.json?ns=put-\(index)", text: "1").status == 401)
                    #expect(try await server.send("DELETE", "/a.json?ns=delete-\(index)").status == 401)
                }
                // Refused by the rules of a namespace that has a rules file (and indexes).
                #expect(try await server.send("PUT", "/x.json?ns=guarded", text: "1").status == 401)
                #expect(try await server.send("GET", "/x.json?ns=guarded").body == "null")
                // Admin reads, a refused event stream and a WebSocket that only looks.
                #expect(try await server.get("/a", ns: "admin-read") == "null")
                let stream = try await SSETestStream.open(port: server.port, path: "/a.json?ns=streamed")
                #expect(stream.status == 401)
                try await stream.waitUntilEnded()
                let port = server.port
                let socket = try await onThread { try RawWebSocket(port: port, query: "v=5&ns=socket") }
                _ = try await onThread { try socket.readText() }
                try await onThread {
                    try socket.sendText(#"{"t":"d","d":{"r":1,"a":"p","b":{"p":"/a","d":1}}}"#)
                }
                let refusedPut = try await onThread { try socket.awaitResponse(to: 1) }
                #expect(refusedPut.contains("permission_denied"), "\(refusedPut)")
                socket.abort()

                // What creates one: an admin write, a permitted anonymous write, admin rules.
                try await server.put("/a", "\"made\"", ns: "made")
                #expect(try await server.send("PUT", "/notes/n.json?ns=open", text: "\"hi\"").status == 200)
                let rules = try await server.send(
                    "PUT",
                    "/.settings/rules.json?ns=ruled&auth=\(TestServer.adminSecret)",
                    text: #"{"rules": {".read": true}}"#
                )
                #expect(rules.status == 200)
            }
            #expect(try folder.namespacesOnDisk() == ["made", "open", "ruled"])

            try await folder.serve { server in
                // The created namespaces kept their data; new ones get ids of their own.
                #expect(try await server.get("/a", ns: "made") == "\"made\"")
                #expect(try await server.send("GET", "/notes/n.json?ns=open").body == "\"hi\"")
                try await server.put("/a", "\"later\"", ns: "later")
                try await server.put("/x", #"{"k":{"v":1}}"#, ns: "guarded")
                #expect(try await server.get("/a", ns: "later") == "\"later\"")
                #expect(try await server.get("/a", ns: "made") == "\"made\"")
                let ordered = try await server.send(
                    "GET",
                    "/x.json?ns=guarded&orderBy=%22v%22&auth=\(TestServer.adminSecret)"
                )
                #expect(ordered.status == 200, "\(ordered.body)")
                for index in 0..<5 {
                    #expect(try await server.send("GET", "/a.json?ns=probe-\(index)").status == 401)
                }
            }
            #expect(try folder.namespacesOnDisk() == ["made", "open", "ruled", "later", "guarded"])
        }
    }

    /// A request for a namespace that exists nowhere and has no rules file is refused by the
    /// default rules (admin only) before anything is opened for it: no engine, no rules loaded.
    @Test func refusedRequestsForMadeUpNamespacesOpenNothing() async throws {
        let logs = LogCapture()
        try await LoggedServer.with(logs: logs, rules: #"{"rules": {".read": false, ".write": false}}"#) { logged in
            let server = logged.server
            try #"{"rules": {".read": true}}"#.write(
                to: server.directory.appendingPathComponent("rules/filed.rules.json"),
                atomically: true,
                encoding: .utf8
            )
            for index in 0..<50 {
                #expect(try await server.send("GET", "/a.json?ns=probe-\(index)").status == 401)
                #expect(try await server.send("PUT", "/a.json?ns=probe-\(index)", text: "1").status == 401)
                #expect(try await server.send("DELETE", "/a.json?ns=probe-\(index)").status == 401)
                if index < 5 {
                    let stream = try await SSETestStream.open(port: server.port, path: "/a.json?ns=probe-\(index)")
                    #expect(stream.status == 401)
                    try await stream.waitUntilEnded()
                }
            }
            // Bad input is still answered as bad input first.
            #expect(try await server.send("GET", "/a.b.json?ns=probe-0").status == 400)
            // A namespace with a rules file is opened under those rules; the admin opens any.
            #expect(try await server.send("GET", "/a.json?ns=filed").body == "null")
            #expect(try await server.get("/a", ns: "admin-read") == "null")
            let opened = Set(
                logs.records().filter { $0.message == "rules installed" }.compactMap { $0.metadata["hearth.ns"] }
            )
            #expect(opened == ["default", "filed", "admin-read"])
        }
    }

    /// A WebSocket names its namespace before it authenticates (an admin may then create it),
    /// so an upgrade for one that exists nowhere opens it in memory: only so many such
    /// namespaces at once; one created on disk leaves the count.
    @Test func webSocketsOpenBoundedlyManyNamespacesThatExistNowhere() async throws {
        try await TestServer.with(
            prepare: { configuration, _ in configuration.realtime.maxProvisionalNamespaces = 3 },
            run: { server in
                let port = server.port
                var clients: [RealtimeTestClient] = []
                for name in ["p1", "p2", "p3"] {
                    clients.append(try await RealtimeTestClient.connect(port: port, ns: name))
                }
                await #expect(throws: (any Error).self) {
                    _ = try await onThread { try RawWebSocket(port: port, query: "v=5&ns=p4") }
                }
                // Namespaces already open, and ones that exist, are still served.
                clients.append(try await RealtimeTestClient.connect(port: port, ns: "p1"))
                clients.append(try await RealtimeTestClient.connect(port: port))
                // The admin creates p2 over its WebSocket: p2 leaves the count, p4 may open.
                try await clients[1].authenticateAsAdmin()
                let put = clients[1].request("p", #"{"p":"/a","d":1}"#)
                #expect(try await clients[1].response(to: put).body["s"] as? String == "ok")
                clients.append(try await RealtimeTestClient.connect(port: port, ns: "p4"))
                await #expect(throws: (any Error).self) {
                    _ = try await onThread { try RawWebSocket(port: port, query: "v=5&ns=p5") }
                }
                for client in clients { await client.close() }
            }
        )
    }
}
