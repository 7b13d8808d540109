import HearthCore
import Testing

@testable import HearthStore

@Suite struct TreeStoreTests {
    @Test func writesAndReadsNestedValues() async throws {
        let temp = try TemporaryStore()
        defer { temp.destroy() }
        let ns = try temp.store.namespace("default")
        try await ns.set("users/alice", #"{"name":"Alice","age":30,"tags":{"a":true}}"#)
        #expect(try await ns.json("users/alice") == #"{"age":30,"name":"Alice","tags":{"a":true}}"#)
        #expect(try await ns.json("users/alice/name") == #""Alice""#)
        #expect(try await ns.json("users/bob") == "null")
        #expect(try await ns.json("users/alice/name/x") == "null")
    }

    @Test func deletingTheLastChildRemovesEmptyParents() async throws {
        let temp = try TemporaryStore()
        defer { temp.destroy() }
        let ns = try temp.store.namespace("default")
        try await ns.set("a/b/c", "1")
        try await ns.set("a/b/c", "null")
        #expect(try await ns.json("") == "null")
        #expect(try await temp.store.isEmpty())
    }

    @Test func writingBelowALeafReplacesTheLeaf() async throws {
        let temp = try TemporaryStore()
        defer { temp.destroy() }
        let ns = try temp.store.namespace("default")
        try await ns.set("a", #"{".value": "leaf", ".priority": 3}"#)
        try await ns.set("a/b", "true")
        #expect(try await ns.json("", format: .export) == #"{"a":{".priority":3,"b":true}}"#)
    }

    @Test func arraysFollowFirebasesRule() async throws {
        let temp = try TemporaryStore()
        defer { temp.destroy() }
        let ns = try temp.store.namespace("default")
        try await ns.set("list", #"["a","b","c"]"#)
        #expect(try await ns.json("list") == #"["a","b","c"]"#)
        try await ns.set("list/1", "null")
        #expect(try await ns.json("list") == #"["a",null,"c"]"#)
        try await ns.set("sparse", #"{"0":1,"5":2}"#)
        #expect(try await ns.json("sparse") == #"{"0":1,"5":2}"#)
        try await ns.set("nested", #"{"0":[1,2],"1":{"x":[true]}}"#)
        #expect(try await ns.json("nested") == #"[[1,2],{"x":[true]}]"#)
        #expect(try await ns.json("nested", format: .export) == #"{"0":{"0":1,"1":2},"1":{"x":{"0":true}}}"#)
    }

    @Test func exportFormatCarriesPriorities() async throws {
        let temp = try TemporaryStore()
        defer { temp.destroy() }
        let ns = try temp.store.namespace("default")
        try await ns.set("p", #"{".priority": "x", "a": {".value": 1, ".priority": 2}, "b": 3}"#)
        #expect(try await ns.json("p", format: .export) == #"{".priority":"x","a":{".value":1,".priority":2},"b":3}"#)
        #expect(try await ns.json("p") == #"{"a":1,"b":3}"#)
        #expect(try await ns.json("p/a", format: .export) == #"{".value":1,".priority":2}"#)
    }

    @Test func multiPathUpdateIsAppliedAsOneWrite() async throws {
        let temp = try TemporaryStore()
        defer { temp.destroy() }
        let ns = try temp.store.namespace("default")
        try await ns.set("", #"{"a":{"x":1,"y":2},"b":5}"#)
        let result = try await ns.update("", [("a/x", "10"), ("a/z", #"{"deep":true}"#), ("b", "null")])
        guard case .committed(let sequence, _) = result else { Issue.record("not committed"); return }
        #expect(sequence == 2)
        #expect(try await ns.json("") == #"{"a":{"x":10,"y":2,"z":{"deep":true}}}"#)
    }

    @Test func overlappingUpdatePathsAreRefusedAndNothingIsWritten() async throws {
        let temp = try TemporaryStore()
        defer { temp.destroy() }
        let ns = try temp.store.namespace("default")
        await #expect(throws: StoreError.self) {
            try await ns.update("", [("a", "1"), ("a/b", "2")])
        }
        #expect(try await ns.json("") == "null")
    }

    @Test func serverValuesResolveAtCommit() async throws {
        let temp = try TemporaryStore(clock: { 1234 })
        defer { temp.destroy() }
        let ns = try temp.store.namespace("default")
        try await ns.set("t", #"{".sv":"timestamp"}"#)
        try await ns.set("n", "5")
        try await ns.set("n", #"{".sv":{"increment":2.5}}"#)
        try await ns.set("m", #"{".sv":{"increment":-1}}"#)
        #expect(try await ns.json("") == #"{"m":-1,"n":7.5,"t":1234}"#)
    }

    @Test func conditionalWritesCompareETags() async throws {
        let temp = try TemporaryStore()
        defer { temp.destroy() }
        let ns = try temp.store.namespace("default")
        let first = try await ns.write(Write(.set(path("a"), try value("1")), ifMatch: "null_etag"))
        #expect(first == .committed(sequence: 1, values: [.leaf(.number(1), priority: nil)]))
        let stale = try await ns.write(Write(.set(path("a"), try value("2")), ifMatch: "null_etag"))
        let etag = try await ns.read { $0.etag(at: path("a")) }
        #expect(stale == .conditionFailed(current: .leaf(.number(1), priority: nil), etag: etag))
        let second = try await ns.write(Write(.set(path("a"), try value("2")), ifMatch: etag))
        #expect(second == .committed(sequence: 2, values: [.leaf(.number(2), priority: nil)]))
    }

    @Test func shallowReadsListChildrenOnly() async throws {
        let temp = try TemporaryStore()
        defer { temp.destroy() }
        let ns = try temp.store.namespace("default")
        try await ns.set("s", #"{"a":{"deep":{"x":1}},"b":2,"c":"three","d":{".priority":1,"q":1}}"#)
        let all = try await ns.read { $0.shallow(at: path("s")) }
        #expect(
            all
                == .children([
                    (ChildKey("a"), nil), (ChildKey("b"), .number(2)), (ChildKey("c"), .string("three")),
                    (ChildKey("d"), nil),
                ])
        )
        let page = try await ns.read { $0.shallow(at: path("s"), startAfter: ChildKey("a"), limit: 2) }
        #expect(page == .children([(ChildKey("b"), .number(2)), (ChildKey("c"), .string("three"))]))
        #expect(try await ns.read { $0.shallow(at: path("s/b")) } == .leaf(.number(2)))
        #expect(try await ns.read { $0.shallow(at: path("none")) } == .null)
    }

    /// A range's end (`endAt`, inclusive, in Firebase's key order: integer keys first, by value).
    @Test func shallowReadsStopAtTheirEndKey() async throws {
        let temp = try TemporaryStore()
        defer { temp.destroy() }
        let ns = try temp.store.namespace("default")
        try await ns.set("s", #"{"2":{"x":1},"10":10,"a":"A","b":{"y":2},"c":3}"#)
        let numbers = try await ns.read { $0.shallow(at: path("s"), endAt: ChildKey("10"), limit: 100) }
        #expect(numbers == .children([(ChildKey("2"), nil), (ChildKey("10"), .number(10))]))
        let range = try await ns.read { $0.shallow(at: path("s"), startAfter: ChildKey("10"), endAt: ChildKey("bz")) }
        #expect(range == .children([(ChildKey("a"), .string("A")), (ChildKey("b"), nil)]))
        let limited = try await ns.read {
            $0.shallow(at: path("s"), startAfter: ChildKey("a"), endAt: ChildKey("c"), limit: 1)
        }
        #expect(limited == .children([(ChildKey("b"), nil)]))
        #expect(
            try await ns.read { $0.shallow(at: path("s"), startAfter: ChildKey("c"), endAt: ChildKey("d")) } == .null
        )
    }

    /// Children with subtrees of every size around the few keys stepped over before a seek,
    /// with priorities, leaves and rewritten (many-versioned) keys: each listed once, in order.
    @Test func shallowReadsStepOverSubtreesOfEverySize() async throws {
        let temp = try TemporaryStore()
        defer { temp.destroy() }
        let ns = try temp.store.namespace("default")
        var expected: [(ChildKey, LeafValue?)] = []
        var object: [String] = []
        for size in 0...9 {
            let key = "k\(size)"
            if size == 0 {
                object.append("\"\(key)\":0")
                expected.append((ChildKey(key), .number(0)))
            } else {
                let members = (0..<size).map { "\"m\($0)\":{\"v\":\($0)}" }.joined(separator: ",")
                object.append("\"\(key)\":{\".priority\":\(size),\(members)}")
                expected.append((ChildKey(key), nil))
            }
        }
        try await ns.set("s", "{" + object.joined(separator: ",") + "}")
        for round in 0..<5 { try await ns.set("s/k3/m1/v", "\(round)") }
        #expect(try await ns.read { $0.shallow(at: path("s")) } == .children(expected))
        let page = try await ns.read { $0.shallow(at: path("s"), startAfter: ChildKey("k4"), limit: 3) }
        #expect(page == .children(Array(expected[5..<8])))
    }

    @Test func namespacesAreIsolatedAndSurviveReopening() async throws {
        let temp = try TemporaryStore()
        defer { temp.destroy() }
        try await temp.store.namespace("one").set("x", "1")
        try await temp.store.namespace("two").set("x", "2")
        try temp.reopen()
        #expect(try await temp.store.namespace("one").json("") == #"{"x":1}"#)
        #expect(try await temp.store.namespace("two").json("") == #"{"x":2}"#)
        #expect(try await temp.store.namespace("three").json("") == "null")
        // Reading a namespace does not create it (issue 13, item 9).
        #expect(Set(try temp.store.namespaceNames()) == ["one", "two"])
        #expect(throws: StoreError.self) { try temp.store.namespace("bad name") }
    }

    @Test func concurrentWritersShareSyncsAndAllLand() async throws {
        let temp = try TemporaryStore(configuration: StoreConfiguration(syncMode: .always))
        defer { temp.destroy() }
        let ns = try temp.store.namespace("default")
        try await withThrowingTaskGroup(of: Void.self) { group in
            for i in 0..<64 {
                group.addTask { try await ns.set("w/\(i)", "\(i)") }
            }
            try await group.waitForAll()
        }
        try temp.reopen()
        let node = try await temp.store.namespace("default").node("w")
        guard case .children(let children, _)? = node else { Issue.record("missing"); return }
        #expect(children.count == 64)
    }

    @Test func readersSeeAMultiPathUpdateAllOrNothing() async throws {
        let temp = try TemporaryStore()
        defer { temp.destroy() }
        let ns = try temp.store.namespace("default")
        let entries = (0..<200).map { ("k\($0)", "1") }
        async let writer: Void = {
            for round in 0..<20 {
                _ = try await ns.update("c", entries.map { ($0.0, "\(round)") })
            }
        }()
        for _ in 0..<50 {
            let node = try await ns.node("c")
            if case .children(let children, _)? = node {
                #expect(children.count == 200)
                #expect(Set(children.nodes).count == 1, "a read saw a partial update")
            }
        }
        try await writer
    }
}

@Suite struct RendererRegressionTests {
    @Test func siblingAfterADeeperIntegerKeyOpensItsOwnObject() async throws {
        let temp = try TemporaryStore()
        defer { temp.destroy() }
        let ns = try temp.store.namespace("default")
        let document = #"{"01":{"10":{"-3":{"x y":1},"b":{"1":2}}}}"#
        try await ns.set("", document)
        #expect(try await ns.json("", format: .export) == document)
    }
}

@Suite struct RenderEscapingTests {
    @Test func streamedJSONEscapesKeysAndStringsAsCoreDoes() async throws {
        let temp = try TemporaryStore()
        defer { temp.destroy() }
        let ns = try temp.store.namespace("default")
        let document = #"{"q\"uote":"a\"b\\c\n\t\u0001\u001f é 😀","back\\slash":{"x":"\b\f\r"}}"#
        try await ns.set("", document)
        let node = try value(document).node
        #expect(try await ns.json("") == String(decoding: JSONRenderer.render(node, format: .plain), as: UTF8.self))
        #expect(try await ns.json("") == #"{"back\\slash":{"x":"\b\f\r"},"q\"uote":"a\"b\\c\n\t\u0001\u001f é 😀"}"#)
    }
}
