import Foundation
import Testing

@testable import HearthServer

/// `callback=` (JSONP) and `download=` on reads, as Firebase's REST API offers them.
struct RESTJSONPAndDownloadTests {
    static let admin = "auth=\(TestServer.adminSecret)"

    @Test func callbackWrapsTheValueAsAScript() async throws {
        try await TestServer.with { server in
            try await server.put("/posts", #"{"a":{"title":"hi"}}"#)
            let reply = try await server.send("GET", "/posts.json?\(Self.admin)&callback=gotData")
            #expect(reply.status == 200)
            #expect(reply.body == #"gotData({"a":{"title":"hi"}});"#)
            #expect(reply.headers.first(name: "Content-Type") == "application/javascript; charset=utf-8")
            #expect(reply.headers.first(name: "X-Content-Type-Options") == "nosniff")

            let pretty = try await server.send("GET", "/posts/a.json?\(Self.admin)&callback=app.got_$1&print=pretty")
            #expect(pretty.body.hasPrefix("app.got_$1({\n"))
            #expect(pretty.body.hasSuffix("});"))
            let inner = String(pretty.body.dropFirst("app.got_$1(".count).dropLast(2))
            #expect(JSONCompare.equal(inner, #"{"title":"hi"}"#))

            let missing = try await server.send("GET", "/nothing.json?\(Self.admin)&callback=cb")
            #expect(missing.body == "cb(null);")

            let silent = try await server.send("GET", "/posts.json?\(Self.admin)&callback=cb&print=silent")
            #expect(silent.status == 204)
            #expect(silent.body.isEmpty)
        }
    }

    @Test func callbackNamesThatAreNotFunctionNamesAreRefused() async throws {
        try await TestServer.with { server in
            try await server.put("/posts", "1")
            for name in ["alert(1)", "a..b", "1a", "a.", ".a", "", "a-b", "a%3Bb", String(repeating: "a", count: 129)] {
                let reply = try await server.send("GET", "/posts.json?\(Self.admin)&callback=\(name)")
                #expect(reply.status == 400, "callback '\(name)'")
                #expect(reply.body.contains("Invalid callback"), "callback '\(name)': \(reply.body)")
                #expect(reply.headers.first(name: "Content-Type") == "application/json; charset=utf-8")
            }
        }
    }

    @Test func callbackAndDownloadAreRefusedOnWrites() async throws {
        try await TestServer.with { server in
            try await server.put("/posts", "1")
            let put = try await server.send("PUT", "/posts.json?\(Self.admin)&callback=cb", text: "2")
            #expect(put.status == 400)
            #expect(put.body.contains("callback is only supported by GET requests."))
            let patch = try await server.send("PATCH", "/.json?\(Self.admin)&download=x.json", text: #"{"posts":3}"#)
            #expect(patch.status == 400)
            #expect(patch.body.contains("download is only supported by GET requests."))
            #expect(try await server.get("/posts") == "1")
        }
    }

    @Test func downloadAnswersAnAttachment() async throws {
        try await TestServer.with { server in
            try await server.put("/posts", #"{"a":{"title":"hi"}}"#)
            let named = try await server.send("GET", "/posts/a.json?\(Self.admin)&download=")
            #expect(named.status == 200)
            #expect(JSONCompare.equal(named.body, #"{"title":"hi"}"#))
            #expect(named.headers.first(name: "Content-Disposition") == #"attachment; filename="a.json""#)
            #expect(named.headers.first(name: "Content-Type") == "application/json; charset=utf-8")

            let root = try await server.send("GET", "/.json?\(Self.admin)&download=&shallow=true")
            #expect(root.headers.first(name: "Content-Disposition") == #"attachment; filename="data.json""#)

            let chosen = try await server.send("GET", "/posts.json?\(Self.admin)&download=backup%20%22x%22.json")
            #expect(chosen.headers.first(name: "Content-Disposition") == #"attachment; filename="backup _x_.json""#)
        }
    }

    @Test func attachmentNamesAreMadeSafe() {
        #expect(ResponseBuilder.attachment(named: "a.json") == #"attachment; filename="a.json""#)
        #expect(ResponseBuilder.attachment(named: "../x\\y\r\n.json") == #"attachment; filename=".._x_y__.json""#)
        #expect(
            ResponseBuilder.attachment(named: "été.json")
                == #"attachment; filename="_t_.json"; filename*=UTF-8''%C3%A9t%C3%A9.json"#
        )
        #expect(ResponseBuilder.attachment(named: "") == #"attachment; filename="data.json""#)
        let long = ResponseBuilder.attachment(named: String(repeating: "x", count: 500))
        #expect(long == "attachment; filename=\"\(String(repeating: "x", count: 200))\"")
    }

    @Test func callbackNameRule() {
        for name in ["cb", "_cb", "$", "a.b.c", "jQuery123_456", "a1"] {
            #expect(RESTOptions.isValidCallback(name), "\(name)")
        }
        for name in ["", "1a", "a.", ".a", "a..b", "a b", "a(b)", "a;b", "é", String(repeating: "a", count: 129)] {
            #expect(!RESTOptions.isValidCallback(name), "\(name)")
        }
    }
}
