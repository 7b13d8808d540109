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
                "databases", "shortcuts", "chart", "files", "files-detail", "files-upload", "storage-api",
                "storage-rules", "storage-highlight", "storage-simulator",
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

    /// Every file the page and its modules name (`src`, `href`, `import ... from "./x.js"`), followed
    /// from `GET /`, is served with the content type of its kind; every file of
    /// `Sources/HearthConsole/Assets` is served as it is on disk; other paths are not found.
    @Test func everyFileThePageNamesIsServedAsItIsInTheRepository() async throws {
        try await TestServer.with { server in
            var pending = ["/"]
            var seen: Set<String> = []
            while let path = pending.popLast() {
                guard seen.insert(path).inserted else { continue }
                let reply = try await server.send("GET", path)
                #expect(reply.status == 200, "\(path)")
                let type = reply.headers["Content-Type"].first ?? ""
                #expect(type == Self.contentType(of: path), "\(path): \(type)")
                #expect(reply.headers["Content-Security-Policy"].first == ConsoleAssetsTests.policy, "\(path)")
                #expect(reply.headers["X-Content-Type-Options"].first == "nosniff", "\(path)")
                pending += Self.references(in: reply.body, of: path)
            }
            #expect(
                seen.isSuperset(of: [
                    "/", "/console/app.js", "/console/style.css", "/console/chart.js", "/console/favicon.svg",
                ])
            )

            let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
                .appendingPathComponent("../../Sources/HearthConsole/Assets").standardizedFileURL
            let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
            #expect(files.contains("index.html") && files.contains("app.js"))
            for file in files {
                let served = file == "index.html" ? "/index.html" : "/console/" + file
                let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
                let reply = try await server.send("GET", served)
                #expect(reply.status == 200 && reply.body == text, "\(served) is not \(file) as it is on disk")
            }
            for path in ["/console/nothing.js", "/console/", "/console/index.html", "/index.htm", "/console/app.js/x"] {
                #expect(try await server.send("GET", path).status == 404, "\(path)")
            }
        }
    }

    /// The files view's modules are not part of the first paint: what the page loads at start
    /// (`src`, `href`, static imports, followed from `GET /`) never reaches them; `app.js` imports
    /// `files.js` when the view is first opened.
    @Test func theFilesViewLoadsOnlyWhenOpened() async throws {
        try await TestServer.with { server in
            var pending = ["/"]
            var seen: Set<String> = []
            while let path = pending.popLast() {
                guard seen.insert(path).inserted else { continue }
                let reply = try await server.send("GET", path)
                pending += Self.references(in: reply.body, of: path, dynamic: false)
            }
            #expect(seen.isSuperset(of: ["/console/app.js", "/console/rules.js", "/console/api.js"]))
            for module in [
                "files", "files-detail", "files-upload", "storage-api", "storage-rules", "storage-highlight",
                "storage-simulator",
            ] {
                #expect(!seen.contains("/console/\(module).js"), "\(module).js loads with the page")
            }
            let app = try await server.send("GET", "/console/app.js")
            #expect(app.body.contains(#"import("./files.js")"#))
        }
    }

    static let policy =
        "default-src 'self'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data: blob:; "
        + "frame-ancestors 'none'; base-uri 'none'; form-action 'none'"

    static func contentType(of path: String) -> String {
        if path == "/" || path.hasSuffix(".html") { return "text/html; charset=utf-8" }
        if path.hasSuffix(".js") { return "text/javascript; charset=utf-8" }
        if path.hasSuffix(".css") { return "text/css; charset=utf-8" }
        if path.hasSuffix(".svg") { return "image/svg+xml" }
        return "?"
    }

    /// The console's paths named in `text`: `src="/…"`, `href="/…"`, and a module's `from "./x.js"`,
    /// `import "./x.js"` and, when `dynamic`, `import("./x.js")` (loaded when the code runs).
    static func references(in text: String, of path: String, dynamic: Bool = true) -> [String] {
        var found: [String] = []
        let imports = dynamic ? #"(?:from|import)\s*\(?\s*"(\.?/[^"]+\.js)""# : #"(?:from|import)\s*"(\.?/[^"]+\.js)""#
        for pattern in [#"(?:src|href)="(/[^"]*)""#, imports] {
            let expression = try! NSRegularExpression(pattern: pattern)
            for match in expression.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                guard let range = Range(match.range(at: 1), in: text) else { continue }
                let name = String(text[range])
                found.append(name.hasPrefix("./") ? "/console/" + name.dropFirst(2) : name)
            }
        }
        return found
    }
}
