import Foundation
import Testing

/// The console is served by the binary: the page, its module and stylesheet, with a content
/// security policy that allows nothing inline and nothing from elsewhere.
@Suite struct ConsoleAssetsTests {
    @Test func thePageAndItsAssetsAreServedWithAStrictPolicy() async throws {
        try await TestServer.with { server in
            let page = try await server.send("GET", "/")
            #expect(page.status == 200)
            #expect(page.headers["Content-Type"].first == "text/html; charset=utf-8")
            #expect(page.body.contains(#"<script type="module" src="/console/app.js"></script>"#))
            let policy = try #require(page.headers["Content-Security-Policy"].first)
            #expect(policy.contains("script-src 'self'") && !policy.contains("unsafe-inline"))
            let script = try await server.send("GET", "/console/app.js")
            #expect(script.status == 200)
            #expect(script.headers["Content-Type"].first == "text/javascript; charset=utf-8")
            // The secret is sent as a header, kept in session storage, never put in a URL.
            #expect(
                try await server.send("GET", "/console/api.js").body.contains(
                    #"Authorization: "Bearer " + session.secret"#
                )
            )
            #expect(script.body.contains("sessionStorage"))
            for module in [
                "api", "app", "data", "rules", "simulator", "users", "health", "tree", "tree-pages", "highlight",
            ] {
                let text = try await server.send("GET", "/console/\(module).js")
                #expect(text.status == 200, "\(module)")
                #expect(!text.body.contains("auth="), "\(module) puts a credential in a URL")
            }
            let style = try await server.send("GET", "/console/style.css")
            #expect(style.headers["Content-Type"].first == "text/css; charset=utf-8")
            #expect(try await server.send("GET", "/console/nothing.js").status == 404)
            #expect(try await server.send("POST", "/").status != 200)
        }
    }
}
