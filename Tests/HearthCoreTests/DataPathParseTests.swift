import Testing

@testable import HearthCore

struct DataPathParseTests {
    @Test(arguments: [
        ("/users/abc", ["users", "abc"]), ("", []), ("/", []), ("//a///b/", ["a", "b"]), ("a/b", ["a", "b"]),
        ("/😀/é", ["😀", "é"]), ("/-Nabc_123", ["-Nabc_123"]), ("/a b/c", ["a b", "c"]),
    ])
    func parses(_ c: (String, [String])) throws {
        #expect(try DataPath.parse(c.0).keys.map(\.string) == c.1)
    }

    @Test(arguments: [
        (
            "/users/a.b",
            "Invalid key 'a.b' in path '/users/a.b': keys cannot contain '.', '#', '$', '[', ']', '/' or control characters."
        ),
        (
            "/a#",
            "Invalid key 'a#' in path '/a#': keys cannot contain '.', '#', '$', '[', ']', '/' or control characters."
        ),
        (
            "/$a",
            "Invalid key '$a' in path '/$a': keys cannot contain '.', '#', '$', '[', ']', '/' or control characters."
        ),
        (
            "/a[0]",
            "Invalid key 'a[0]' in path '/a[0]': keys cannot contain '.', '#', '$', '[', ']', '/' or control characters."
        ),
        (
            "/a\u{0}",
            "Invalid key 'a\u{0}' in path '/a\u{0}': keys cannot contain '.', '#', '$', '[', ']', '/' or control characters."
        ),
        (
            "/a/.priority",
            "Invalid key '.priority' in path '/a/.priority': keys cannot contain '.', '#', '$', '[', ']', '/' or control characters."
        ),
        (
            "/" + String(repeating: "x", count: 769),
            "Invalid key '" + String(repeating: "x", count: 40) + "...' in path '/" + String(repeating: "x", count: 199)
                + "': keys can be at most 768 bytes of UTF-8."
        ),
        (
            String(repeating: "/a", count: 33),
            "Invalid path '" + String(repeating: "/a", count: 33) + "': data can be nested at most 32 levels deep."
        ),
    ])
    func rejects(_ c: (String, String)) {
        #expect(coreErrorMessage { _ = try DataPath.parse(c.0) } == c.1)
    }

    @Test func maxDepthAndKeyLengthAccepted() throws {
        #expect(try DataPath.parse(String(repeating: "/a", count: 32)).depth == 32)
        #expect(try DataPath.parse("/" + String(repeating: "é", count: 384)).depth == 1)  // 768 bytes
    }

    @Test func writePathWithPriority() throws {
        let parsed = try DataPath.parseWritePath("/a/b/.priority")
        #expect(parsed.path == DataPath(keys: [ChildKey("a"), ChildKey("b")]))
        #expect(parsed.isPriority)
        let plain = try DataPath.parseWritePath("/a/b")
        #expect(!plain.isPriority && plain.path.depth == 2)
        #expect(try DataPath.parseWritePath("/.priority") == (DataPath.root, true))
        #expect(
            coreErrorMessage { _ = try DataPath.parseWritePath("/a/.priority/b") }
                == "Invalid path '/a/.priority/b': '.priority' can only be the last segment of a write path."
        )
    }

    @Test func keyValidator() {
        #expect(KeyValidator.problem("") == .empty)
        #expect(KeyValidator.problem("a.b") == .forbiddenCharacter)
        #expect(KeyValidator.problem(String(repeating: "k", count: 769)) == .tooLong)
        #expect(KeyValidator.isValid("-Nabc"))
    }
}
