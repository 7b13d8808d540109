import Testing

@testable import HearthCore

struct JSONEventParserTests {
    /// Runs the parser over `json` cut into chunks of `chunkSize` bytes.
    static func events(_ json: String, chunkSize: Int, basePathDepth: Int = 0) throws -> [String] {
        var parser = JSONEventParser(basePathDepth: basePathDepth)
        var out: [String] = []
        let handler: (JSONEventParser.Event) -> Void = { event in
            switch event {
            case .leaf(let path, let value):
                out.append(KeyValidator.describe(path) + "=" + text(.leaf(value, priority: nil)))
            case .priority(let path, let priority):
                var bytes: [UInt8] = []
                JSONRenderer.appendPriority(priority, into: &bytes)
                out.append(KeyValidator.describe(path) + "#" + String(decoding: bytes, as: UTF8.self))
            }
        }
        let bytes = Array(json.utf8)
        var i = 0
        while i < bytes.count {
            try parser.feed(Array(bytes[i..<min(i + chunkSize, bytes.count)]), handler: handler)
            i += chunkSize
        }
        try parser.finish(handler: handler)
        return out
    }

    static let document = #"""
        {"users": {"u1": {"name": "Ann \u00e9\ud83d\ude00", "age": 31.25, "tags": ["a", null, "c"], ".priority": 3},
         "u2": {".value": "leaf", ".priority": "p"}, "u3": {".priority": 9}, "u4": {"x": null, "y": {}}},
         "n": [true, false, -0, 1e3, 123456789012]}
        """#

    static let expected = [
        "/users/u1/name=\"Ann é😀\"", "/users/u1/age=31.25", "/users/u1/tags/0=\"a\"", "/users/u1/tags/2=\"c\"",
        "/users/u1#3", "/users/u2=\"leaf\"", "/users/u2#\"p\"", "/n/0=true", "/n/1=false", "/n/2=0", "/n/3=1000",
        "/n/4=123456789012",
    ]

    @Test(arguments: [1, 2, 3, 7, 64, 100_000])
    func sameEventsForEveryChunking(_ chunkSize: Int) throws {
        #expect(try Self.events(Self.document, chunkSize: chunkSize) == Self.expected)
    }

    @Test func agreesWithTreeParser() throws {
        let node = tree(Self.document)
        var rebuilt: Node? = nil
        var priorities: [([ChildKey], Priority)] = []
        var parser = JSONEventParser()
        let handler: (JSONEventParser.Event) -> Void = { event in
            switch event {
            case .leaf(let path, let value):
                rebuilt = ServerValueResolver.setting(rebuilt, at: path[...], to: .leaf(value, priority: nil))
            case .priority(let path, let priority):
                priorities.append((path, priority))
            }
        }
        try parser.feed(Array(Self.document.utf8), handler: handler)
        try parser.finish(handler: handler)
        for (path, priority) in priorities {
            rebuilt = ServerValueResolver.settingPriority(rebuilt, at: path[...], to: priority)
        }
        #expect(rebuilt == node)
    }

    @Test func topLevelScalars() throws {
        #expect(try Self.events("123", chunkSize: 1) == ["/=123"])
        #expect(try Self.events(" \"s\" ", chunkSize: 2) == ["/=\"s\""])
        #expect(try Self.events("null", chunkSize: 3) == [])
    }

    @Test(arguments: [
        (
            #"{"a":{".sv":"timestamp"}}"#,
            "Invalid data at '/a': server values ('.sv') cannot be imported; only plain JSON data is accepted."
        ),
        (
            #"{"a.b":1}"#,
            "Invalid key 'a.b' in path '/a.b': keys cannot contain '.', '#', '$', '[', ']', '/' or control characters."
        ),
        (
            #"{"a":{".value":1,"b":2}}"#,
            "Invalid data at '/a': '.value' cannot be combined with keys other than '.priority'."
        ),
        (
            #"{"a":{".priority":true}}"#,
            "Invalid priority 'true' at '/a/.priority': '.priority' must be a number, a string or null."
        ),
        (#"{"a":1}x"#, "Invalid JSON at byte 7: unexpected characters after the JSON value."),
        (#"{"a":1"#, "Invalid JSON at byte 6: unexpected end of input."),
        (#"{"a" 1}"#, "Invalid JSON at byte 5: expected ':' after an object key."),
        ("[1 2]", "Invalid JSON at byte 3: expected ',' or ']' after an array element."),
        (
            "12.",
            "Invalid JSON at byte 0: invalid number; numbers are written as -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?."
        ),
        ("", "Invalid JSON at byte 0: unexpected end of input."),
    ])
    func errors(_ c: (String, String)) {
        for chunk in [1, 4, 1000] {
            #expect(coreErrorMessage { _ = try Self.events(c.0, chunkSize: chunk) } == c.1)
        }
    }

    @Test func depthLimit() {
        let deep = String(repeating: #"{"a":"#, count: 31) + "1" + String(repeating: "}", count: 31)
        #expect(throws: Never.self) { _ = try Self.events(deep, chunkSize: 5, basePathDepth: 1) }
        #expect(
            coreErrorMessage { _ = try Self.events(deep, chunkSize: 5, basePathDepth: 2) }
                == "Invalid path '" + String(repeating: "/a", count: 31)
                + "': data can be nested at most 32 levels deep."
        )
    }
}
