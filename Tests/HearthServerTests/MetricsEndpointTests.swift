import Foundation
import HearthServer
import Testing

/// `GET /metrics`: the admin's Prometheus text, with requests counted by route and status,
/// sign-ins, connections, the store's size and the process's figures.
@Suite struct MetricsEndpointTests {
    @Test func onlyTheAdminReadsThePrometheusText() async throws {
        try await AccountsClient.withServer { accounts in
            let server = accounts.server
            let user = try await accounts.signUp("metrics@example.com")
            #expect(
                try await accounts.call("signInWithPassword", ["email": "metrics@example.com", "password": "secret1"])
                    .status == 200
            )
            #expect(
                try await accounts.call("signInWithPassword", ["email": "metrics@example.com", "password": "wrong!!"])
                    .status == 400
            )
            // One listener gets two updates: the written value, then a change.
            let listener = try await RealtimeTestClient.connect(port: server.port)
            try await listener.authenticateAsAdmin()
            _ = try await listener.response(to: listener.request("q", #"{"p":"/a","h":""}"#))
            try await server.put("/a", "1")
            _ = try await listener.nextPush()
            try await server.put("/a", "2")
            _ = try await listener.nextPush()
            let listening = try await server.send(
                "GET",
                "/metrics",
                headers: [("Authorization", "Bearer \(TestServer.adminSecret)")]
            )
            #expect(PrometheusText.sample(#"hearth_listeners{namespace="default"}"#, in: listening.body) == 1)
            await listener.close()
            for _ in 0..<3 { _ = try await server.get("/a") }
            #expect(try await server.send("GET", "/missing.json").status == 401)
            // Refused without the admin credential, even to a signed-in user.
            #expect(try await server.send("GET", "/metrics").status == 401)
            let asUser = try await server.send(
                "GET",
                "/metrics",
                headers: [("Authorization", "Bearer \(user.string("idToken"))")]
            )
            #expect(asUser.status == 401)
            let reply = try await server.send(
                "GET",
                "/metrics",
                headers: [("Authorization", "Bearer \(TestServer.adminSecret)")]
            )
            #expect(reply.status == 200)
            #expect(reply.headers["Content-Type"].first?.hasPrefix("text/plain; version=0.0.4") == true)
            let text = reply.body
            #expect(text.contains("# TYPE hearth_http_requests_total counter"))
            #expect(PrometheusText.sample(#"hearth_http_requests_total{route="rest",status="200"}"#, in: text) == 5)
            #expect(PrometheusText.sample(#"hearth_http_requests_total{route="rest",status="401"}"#, in: text) == 1)
            #expect(PrometheusText.sample(#"hearth_http_requests_total{route="metrics",status="401"}"#, in: text) == 2)
            #expect(PrometheusText.sample(#"hearth_sign_ins_total{result="success"}"#, in: text) == 1)
            #expect(PrometheusText.sample(#"hearth_sign_ins_total{result="failure"}"#, in: text) == 1)
            #expect(text.contains(#"hearth_http_request_duration_seconds_bucket{route="rest",le="0.001"}"#))
            #expect((PrometheusText.sample("hearth_open_connections", in: text) ?? 0) >= 1)
            #expect(PrometheusText.sample(#"hearth_writes_total{namespace="default"}"#, in: text) == 2)
            #expect(PrometheusText.sample(#"hearth_deliveries_total{namespace="default"}"#, in: text) == 2)
            #expect(
                PrometheusText.sample(#"hearth_rules_denials_total{namespace="default",operation="read"}"#, in: text)
                    == 1
            )
            // Each write acknowledged, each commit fanned out to its listener, timed.
            #expect(PrometheusText.sample(#"hearth_write_duration_seconds_count{namespace="default"}"#, in: text) == 2)
            #expect(
                PrometheusText.sample(#"hearth_delivery_duration_seconds_count{namespace="default"}"#, in: text) == 2
            )
            #expect(text.contains(#"hearth_write_duration_seconds_bucket{namespace="default",le="0.00025"}"#))
            #expect(PrometheusText.sample(#"hearth_listeners{namespace="default"}"#, in: text) != nil)
            #expect((PrometheusText.sample("hearth_store_size_bytes", in: text) ?? 0) > 0)
            // Per namespace: LevelDB's estimate of its table files (0 while all is in the memtable).
            #expect(PrometheusText.sample(#"hearth_namespace_store_bytes{namespace="default"}"#, in: text) != nil)
            #expect((PrometheusText.sample("process_resident_memory_bytes", in: text) ?? 0) > 1_000_000)
            #expect((PrometheusText.sample("process_open_fds", in: text) ?? 0) > 3)
            #expect((PrometheusText.sample("process_cpu_seconds", in: text) ?? 0) > 0)
        }
    }
}
