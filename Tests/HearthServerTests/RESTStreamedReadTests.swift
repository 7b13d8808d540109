import Foundation
import HearthTestSupport
import Testing

/// A plain `GET` of a value is sent as it is rendered: a value past one chunk (256 KiB) goes
/// chunked, byte for byte what the whole render answers; a smaller one keeps its length; a
/// refused read sends nothing of the value.
struct RESTStreamedReadTests {
    static let admin = "auth=\(TestServer.adminSecret)"
    /// About 1.6 MB: six chunks and a part.
    static let bigValue: String = {
        let filler = String(repeating: "x", count: 400)
        let children = (0..<4_000).map {
            #""c\#(String(format: "%05d", $0))":{"n":\#($0),"bio":"\#(filler)","on":true}"#
        }
        return "{" + children.joined(separator: ",") + "}"
    }()

    @Test func aValuePastOneChunkIsChunkedAndTheSameAsTheWholeRender() async throws {
        try await TestServer.with { server in
            try await server.put("/big", Self.bigValue)
            let streamed = try await server.send("GET", "/big.json?\(Self.admin)")
            #expect(streamed.status == 200)
            #expect(streamed.headers.first(name: "Transfer-Encoding") == "chunked")
            #expect(streamed.headers.first(name: "Content-Length") == nil)
            #expect(streamed.headers.first(name: "Content-Type") == "application/json; charset=utf-8")
            // An ETag read is rendered whole: the reference.
            let whole = try await server.send("GET", "/big.json?\(Self.admin)", headers: [("X-Firebase-ETag", "true")])
            #expect(whole.headers.first(name: "Content-Length") == String(whole.body.utf8.count))
            #expect(streamed.body.utf8.count > 1_500_000)
            #expect(streamed.body == whole.body)
            #expect(JSONCompare.equal(streamed.body, Self.bigValue))
        }
    }

    @Test func aSmallValueKeepsItsLength() async throws {
        try await TestServer.with { server in
            try await server.put("/small", #"{"a":{"b":1},"c":"d"}"#)
            let reply = try await server.send("GET", "/small.json?\(Self.admin)")
            #expect(reply.status == 200)
            #expect(reply.body == #"{"a":{"b":1},"c":"d"}"#)
            #expect(reply.headers.first(name: "Content-Length") == String(reply.body.utf8.count))
            #expect(reply.headers.first(name: "Transfer-Encoding") == nil)
            let missing = try await server.send("GET", "/nothing.json?\(Self.admin)")
            #expect(missing.status == 200 && missing.body == "null")
        }
    }

    @Test func anExportAndADownloadAreStreamedWithTheirForm() async throws {
        try await TestServer.with { server in
            try await server.put("/big", Self.bigValue)
            try await server.put("/big/c00001/.priority", "7")
            let exported = try await server.send("GET", "/big.json?\(Self.admin)&format=export")
            let whole = try await server.send(
                "GET",
                "/big.json?\(Self.admin)&format=export",
                headers: [("X-Firebase-ETag", "true")]
            )
            #expect(exported.headers.first(name: "Transfer-Encoding") == "chunked")
            #expect(exported.body.contains(#""c00001":{".priority":7"#))
            #expect(exported.body == whole.body)
            let download = try await server.send("GET", "/big.json?\(Self.admin)&download=")
            #expect(download.headers.first(name: "Content-Disposition") == #"attachment; filename="big.json""#)
            #expect(download.body == whole.body.replacingOccurrences(of: #"{".priority":7,"#, with: "{"))
        }
    }

    @Test func aRefusedReadSendsNothingOfTheValue() async throws {
        let rules = #"{"rules": {"open": {".read": true}}}"#
        try await TestServer.with(rules: rules) { server in
            try await server.put("/secret", Self.bigValue)
            try await server.put("/open", Self.bigValue)
            let refused = try await server.send("GET", "/secret.json")
            #expect(refused.status == 401)
            #expect(refused.body.contains("Permission denied"))
            #expect(!refused.body.contains("bio"))
            let allowed = try await server.send("GET", "/open.json")
            #expect(allowed.status == 200)
            #expect(JSONCompare.equal(allowed.body, Self.bigValue))
        }
    }
}
