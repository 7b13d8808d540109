import Testing

@testable import HearthCore

struct ServerValueResolverTests {
    static let existing = tree(#"{"count":5,"name":"x","deep":{"n":1.5},"p":{"a":1,".priority":10}}"#)

    static func resolve(_ json: String, now: Double = 1_700_000_000_000) throws -> String {
        let value = try TreeParser.parse(json, at: .root)
        let node = ServerValueResolver.resolve(value, now: now) { path in existing?.descendant(path) }
        return text(node, .export)
    }

    @Test(arguments: [
        (#"{".sv":"timestamp"}"#, "1700000000000"),
        (#"{"t":{".sv":"timestamp"},"a":1}"#, #"{"a":1,"t":1700000000000}"#),
        (#"{"count":{".sv":{"increment":2}}}"#, #"{"count":7}"#),
        (#"{"count":{".sv":{"increment":-5.5}}}"#, #"{"count":-0.5}"#),
        (#"{"name":{".sv":{"increment":2}}}"#, #"{"name":2}"#),  // not a number: the increment alone
        (#"{"missing":{".sv":{"increment":3}}}"#, #"{"missing":3}"#),
        (#"{"deep":{"n":{".sv":{"increment":1}},"m":{".sv":"timestamp"}}}"#, #"{"deep":{"m":1700000000000,"n":2.5}}"#),
        (#"{"x":{".value":1,".priority":{".sv":"timestamp"}}}"#, #"{"x":{".value":1,".priority":1700000000000}}"#),
        (#"{"p":{"a":2,".priority":{".sv":{"increment":1}}}}"#, #"{"p":{"a":2,".priority":11}}"#),
        // At the location itself: the root here is an object, so the increment alone.
        (#"{".sv":{"increment":2}}"#, "2"),
        (#"{".value":{".sv":{"increment":2}},".priority":5}"#, #"{".value":2,".priority":5}"#),
    ])
    func resolves(_ c: (String, String)) throws {
        #expect(try Self.resolve(c.0) == c.1)
    }

    @Test func pathsAreRelativeToTheWrittenLocation() throws {
        var asked: [String] = []
        let value = try TreeParser.parse(#"{"a":{"b":{".sv":{"increment":1}}}}"#, at: try DataPath.parse("/base/loc"))
        let node = ServerValueResolver.resolve(value, now: 0) { path in
            asked.append(path.description)
            return .leaf(.number(41), priority: nil)
        }
        #expect(asked == ["/a/b"])
        #expect(text(node) == #"{"a":{"b":42}}"#)
    }

    @Test func anIncrementAtTheLocationItselfAddsToItsNumber() throws {
        var asked: [String] = []
        let value = try TreeParser.parse(#"{".sv":{"increment":1.5}}"#, at: try DataPath.parse("/counters/c"))
        let node = ServerValueResolver.resolve(value, now: 0) { path in
            asked.append(path.description)
            return .leaf(.number(41), priority: .string("kept apart"))
        }
        #expect(asked == ["/"])
        #expect(text(node, .export) == "42.5")
    }

    @Test func resolvedLeafAlone() {
        #expect(ServerValueResolver.resolvedLeaf(.timestamp, now: 12, existing: { nil }) == .number(12))
        #expect(
            ServerValueResolver.resolvedLeaf(.increment(1), now: 0, existing: { .leaf(.bool(true), priority: nil) })
                == .number(1)
        )
    }
}
