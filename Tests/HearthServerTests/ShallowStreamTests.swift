import Foundation
import HearthTestSupport
import Testing

/// The admin's shallow stream (`shallow=true` with `Accept: text/event-stream`, a Hearth
/// extension): a page of children followed live without their subtrees; everyone else keeps
/// Firebase's answers.
struct ShallowStreamTests {
    static let admin = "auth=\(TestServer.adminSecret)"
    static let eventStream = [("Accept", "text/event-stream")]

    @Test func aPageOfChildrenIsFollowedShallow() async throws {
        try await TestServer.with { server in
            try await server.put("/big", #"{"a":1,"b":{"x":{"y":1}},"c":"s","d":4,"e":5}"#)
            let stream = try await SSETestStream.open(
                port: server.port,
                path: "/big.json?\(Self.admin)&shallow=true&startAfter=a&endAt=%22d%22&limitToFirst=10"
            )
            #expect(stream.status == 200)
            var event = try await stream.nextData()
            #expect(event.name == "put")
            #expect(canonicalJSON(event.json["data"]) == #"{"b":true,"c":"s","d":4}"#)

            // A change deep inside a child with children, and one outside the range, send
            // nothing: the next event is the one for the write after them.
            try await server.put("/big/b/x/y", "2")
            try await server.put("/big/f", "6")
            try await server.put("/big/bb", #"{"o":1}"#)
            event = try await stream.nextData()
            #expect(event.name == "patch")
            #expect(event.json["path"] as? String == "/")
            #expect(canonicalJSON(event.json["data"]) == #"{"bb":true}"#)

            try await server.put("/big/c", #"{"now":"an object"}"#)
            event = try await stream.nextData()
            #expect(canonicalJSON(event.json["data"]) == #"{"c":true}"#)

            try await server.put("/big/b", "7")
            event = try await stream.nextData()
            #expect(canonicalJSON(event.json["data"]) == #"{"b":7}"#)

            let deleted = try await server.send("DELETE", TestServer.url("/big/d", admin: true))
            #expect(deleted.status == 200)
            event = try await stream.nextData()
            #expect(canonicalJSON(event.json["data"]) == #"{"d":null}"#)
        }
    }

    @Test func aShallowListenAndTheSameQueryNeverShareTheirPushes() async throws {
        try await TestServer.with { server in
            try await server.put("/big", #"{"a":1,"b":{"x":1},"c":2}"#)
            let shallow = try await SSETestStream.open(
                port: server.port,
                path: "/big.json?\(Self.admin)&shallow=true&startAfter=a&endAt=c&limitToFirst=10"
            )
            let query = try await SSETestStream.open(
                port: server.port,
                path: "/big.json?\(Self.admin)&orderBy=%22$key%22&startAfter=%22a%22&endAt=%22c%22&limitToFirst=10"
            )
            #expect(canonicalJSON(try await shallow.nextData().json["data"]) == #"{"b":true,"c":2}"#)
            #expect(canonicalJSON(try await query.nextData().json["data"]) == #"{"b":{"x":1},"c":2}"#)
            // A change inside b: the query sends b's new value, the shallow listen nothing (its
            // next event is the one for the child added after).
            try await server.put("/big/b/x", "2")
            #expect(canonicalJSON(try await query.nextData().json["data"]) == #"{"b":{"x":2}}"#)
            try await server.put("/big/bb", #"{"y":1}"#)
            #expect(canonicalJSON(try await shallow.nextData().json["data"]) == #"{"bb":true}"#)
            #expect(canonicalJSON(try await query.nextData().json["data"]) == #"{"bb":{"y":1}}"#)
        }
    }

    @Test func theRangeIsBoundedAndExplained() async throws {
        try await TestServer.with { server in
            let missing = try await server.send(
                "GET",
                "/big.json?\(Self.admin)&shallow=true",
                headers: Self.eventStream
            )
            #expect(missing.status == 400)
            #expect(missing.body.contains("limitToFirst is required with shallow=true on a stream"))
            let tooMany = try await server.send(
                "GET",
                "/big.json?\(Self.admin)&shallow=true&limitToFirst=1001",
                headers: Self.eventStream
            )
            #expect(tooMany.status == 400)
            #expect(tooMany.body.contains("Invalid limitToFirst '1001'"))
            let ordered = try await server.send(
                "GET",
                "/big.json?\(Self.admin)&shallow=true&limitToFirst=5&orderBy=%22$key%22",
                headers: Self.eventStream
            )
            #expect(ordered.status == 400)
            #expect(ordered.body.contains("Mixing 'shallow' and querying parameters is not supported"))
            // A REST read keeps Firebase's refusal of shallow with a range end.
            let read = try await server.send("GET", "/big.json?\(Self.admin)&shallow=true&endAt=d")
            #expect(read.status == 400)
            #expect(read.body.contains("Mixing 'shallow' and querying parameters is not supported"))
        }
    }

    @Test func everyoneElseGetsTheAnswersTheyGotBefore() async throws {
        try await TestServer.with(rules: #"{"rules": {".read": true}}"#) { server in
            try await server.put("/big", #"{"a":1}"#)
            let plain = try await server.send("GET", "/big.json?shallow=true&limitToFirst=5", headers: Self.eventStream)
            #expect(plain.status == 400)
            #expect(plain.body.contains("shallow is not supported by streaming reads."))
            let ranged = try await server.send(
                "GET",
                "/big.json?auth=\(TokenMinter.token())&shallow=true&limitToFirst=5&endAt=a",
                headers: Self.eventStream
            )
            #expect(ranged.status == 400)
            #expect(ranged.body.contains("Mixing 'shallow' and querying parameters is not supported"))
            // The admin acting as a user is that user here too.
            let override = try await server.send(
                "GET",
                "/big.json?\(Self.admin)&auth_variable_override=%7B%22uid%22%3A%22amy%22%7D&shallow=true&limitToFirst=5",
                headers: Self.eventStream
            )
            #expect(override.status == 400)
            #expect(override.body.contains("shallow is not supported by streaming reads."))
        }
    }
}
