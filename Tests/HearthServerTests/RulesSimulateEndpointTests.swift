import Foundation
import HearthServer
import Testing

/// `POST /.settings/rules:simulate`: the admin's rules simulator over the namespace's data.
@Suite struct RulesSimulateEndpointTests {
    static func simulate(_ server: TestServer, _ body: String, admin: Bool = true) async throws -> TestServer.Reply {
        let headers = admin ? [("Authorization", "Bearer \(TestServer.adminSecret)")] : []
        return try await server.send("POST", "/.settings/rules:simulate", headers: headers, text: body)
    }

    static func object(_ reply: TestServer.Reply) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(reply.body.utf8)) as? [String: Any])
    }

    @Test func theRulesInForceJudgeTheStoredDataAndNothingIsWritten() async throws {
        try await TestServer.with(
            rules:
                #"{"rules": {"docs": {"$id": {".read": "data.child('owner').val() === auth.uid", ".write": false}}}}"#
        ) { server in
            try await server.put("/docs/d1", #"{"owner":"amy"}"#)
            let amy = try Self.object(
                try await Self.simulate(server, #"{"op":"read","path":"/docs/d1","auth":{"uid":"amy"}}"#)
            )
            #expect(amy["allowed"] as? Bool == true)
            #expect((amy["decidedBy"] as? [String: Any])?["rule"] as? String == "/rules/docs/$id/.read")
            let bob = try Self.object(
                try await Self.simulate(server, #"{"op":"read","path":"/docs/d1","auth":{"uid":"bob"}}"#)
            )
            #expect(bob["allowed"] as? Bool == false)
            #expect(bob["decidedBy"] is NSNull)
            let trace = try #require(bob["trace"] as? [[String: Any]])
            #expect(trace.last?["expression"] as? String == "data.child('owner').val() === auth.uid")
            #expect(trace.last?["outcome"] as? Bool == false)
            // A write is judged, not made.
            let write = try Self.object(
                try await Self.simulate(
                    server,
                    #"{"op":"write","path":"/docs/d1","auth":{"uid":"amy"},"value":{"owner":"amy","x":1}}"#
                )
            )
            #expect(write["allowed"] as? Bool == false)
            #expect(try await server.get("/docs/d1") == #"{"owner":"amy"}"#)
        }
    }

    @Test func eachRuleInTheTraceCarriesTheValueOfEveryPart() async throws {
        try await TestServer.with(
            rules:
                #"{"rules": {"docs": {"$id": {".read": "auth != null && data.child('owner').val() === auth.uid"}}}}"#
        ) { server in
            try await server.put("/docs/d1", #"{"owner":"amy"}"#)
            let bob = try Self.object(
                try await Self.simulate(server, #"{"op":"read","path":"/docs/d1","auth":{"uid":"bob"}}"#)
            )
            #expect(bob["evaluationTruncated"] as? Bool == false)
            let entry = try #require((bob["trace"] as? [[String: Any]])?.last)
            let root = try #require(entry["evaluation"] as? [String: Any])
            #expect(root["text"] as? String == "auth != null && data.child('owner').val() === auth.uid")
            #expect(root["line"] as? Double == 1)
            #expect(root["column"] as? Double == 39)
            #expect(root["evaluated"] as? Bool == true)
            #expect(root["type"] as? String == "boolean")
            #expect(root["value"] as? Bool == false)
            #expect(root["shown"] as? String == "false")
            let parts = try #require(root["children"] as? [[String: Any]])
            #expect(parts.map { $0["text"] as? String } == ["auth != null", "data.child('owner').val() === auth.uid"])
            let comparison = try #require(parts.last?["children"] as? [[String: Any]])
            let val = try #require(comparison.first)
            #expect(val["text"] as? String == "data.child('owner').val()")
            #expect(val["column"] as? Double == 55)
            #expect(val["type"] as? String == "string")
            #expect(val["value"] as? String == "amy")
            #expect(val["shown"] as? String == #""amy""#)
            let snapshot = try #require((val["children"] as? [[String: Any]])?.first)
            #expect(snapshot["type"] as? String == "snapshot")
            #expect(snapshot["path"] as? String == "/docs/d1/owner")
            #expect(snapshot["afterWrite"] as? Bool == false)
            #expect(comparison.last?["value"] as? String == "bob")

            // Signed out: `&&` stops at its left side; the right one is listed, not evaluated.
            let anonymous = try Self.object(try await Self.simulate(server, #"{"op":"read","path":"/docs/d1"}"#))
            let anonymousRoot = try #require(
                (anonymous["trace"] as? [[String: Any]])?.last?["evaluation"] as? [String: Any]
            )
            let right = try #require((anonymousRoot["children"] as? [[String: Any]])?.last)
            #expect(right["evaluated"] as? Bool == false)
            #expect(right["type"] as? String == "not evaluated")
            #expect(right["value"] == nil)

            // The deciding entry names the rule; its values are in the trace.
            let amy = try Self.object(
                try await Self.simulate(server, #"{"op":"read","path":"/docs/d1","auth":{"uid":"amy"}}"#)
            )
            let decidedBy = try #require(amy["decidedBy"] as? [String: Any])
            #expect(decidedBy["rule"] as? String == "/rules/docs/$id/.read")
            #expect(decidedBy["evaluation"] == nil)
            let granted = try #require((amy["trace"] as? [[String: Any]])?.last?["evaluation"] as? [String: Any])
            #expect(granted["value"] as? Bool == true)
        }
    }

    @Test func aDraftRulesDocumentIsTriedInsteadAndBadInputIsRefused() async throws {
        try await TestServer.with(rules: #"{"rules": {}}"#) { server in
            let draft = #"{\"rules\": {\"open\": {\".read\": true}}}"#
            let tried = try Self.object(
                try await Self.simulate(server, #"{"op":"read","path":"/open/x","auth":null,"rules":"\#(draft)"}"#)
            )
            #expect(tried["allowed"] as? Bool == true)
            // The rules in force are unchanged.
            let inForce = try Self.object(try await Self.simulate(server, #"{"op":"read","path":"/open/x"}"#))
            #expect(inForce["allowed"] as? Bool == false)
            let cases = [
                (#"{"op":"read","path":"/x","rules":"{\"rules\": {\".read\": \"nope(\"}}"}"#, "Invalid rules document"),
                (#"{"op":"erase","path":"/x"}"#, "'op' must be"),
                (#"{"op":"read"}"#, "'path' must be a string"),
                (#"{"op":"read","path":"/x","value":1}"#, "'value' is for a write"),
                (#"{"op":"update","path":"/x","value":1}"#, "'value' of an update must be an object"),
                ("not json", "the body is not JSON"),
            ]
            for (body, message) in cases {
                let reply = try await Self.simulate(server, body)
                #expect(reply.status == 400, "\(body): \(reply.body)")
                #expect(reply.body.contains(message), "\(body): \(reply.body)")
            }
            #expect(try await Self.simulate(server, #"{"op":"read","path":"/x"}"#, admin: false).status == 401)
        }
    }

    @Test func aDraftIsCheckedWithoutBeingPutInForce() async throws {
        try await TestServer.with(rules: #"{"rules": {".read": true}}"#) { server in
            let headers = [("Authorization", "Bearer \(TestServer.adminSecret)")]
            let draft = "{\"rules\": {\n  \".read\": \"auht != null\"}}"
            let reply = try await server.send("POST", "/.settings/rules:check", headers: headers, text: draft)
            #expect(reply.status == 200)
            let object = try Self.object(reply)
            #expect(object["ok"] as? Bool == false)
            let first = try #require((object["diagnostics"] as? [[String: Any]])?.first)
            #expect(first["line"] as? Double == 2)
            #expect(first["column"] as? Double == 13)
            #expect((first["message"] as? String)?.contains("unknown variable 'auht'") == true)
            let good = try await server.send(
                "POST",
                "/.settings/rules:check",
                headers: headers,
                text: #"{"rules": {}}"#
            )
            #expect(try Self.object(good)["ok"] as? Bool == true)
            #expect(try await server.send("GET", "/x.json").status == 200)
            #expect(try await server.send("POST", "/.settings/rules:check", text: #"{"rules": {}}"#).status == 401)
        }
    }
}
