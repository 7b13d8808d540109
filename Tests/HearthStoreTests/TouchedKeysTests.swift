import HearthCore
import Testing

@testable import HearthStore

@Suite struct TouchedKeysTests {
    let keys = KeySpace(namespaceID: 7)

    func key(_ string: String) -> [UInt8] { keys.dataKey(path(string)) }

    @Test func tellsTheSameKeyFromOnesAboveAndBelowIt() {
        var touched = TouchedKeys()
        touched.insert(key("users/u1/unread"))
        touched.insert(key("chats/c1"))
        #expect(touched.relation(of: key("users/u1/unread")) == .same)
        #expect(touched.relation(of: key("users/u1")) == .nested)
        #expect(touched.relation(of: key("")) == .nested)
        #expect(touched.relation(of: key("users/u1/unread/x")) == .nested)
        #expect(touched.relation(of: key("chats/c1/lastMessage/text")) == .nested)
        #expect(touched.relation(of: key("users/u1/unreadx")) == .none)
        #expect(touched.relation(of: key("users/u2/unread")) == .none)
        #expect(touched.relation(of: keys.priorityKey(path("users/u1/unread"))) == .nested)
        #expect(touched.relation(of: KeySpace(namespaceID: 8).dataKey(path("users/u1/unread"))) == .none)
    }

    /// Keys inserted in runs of siblings (a write's counters in key order) skip the walk over
    /// their ancestors after the first: the answers are those of keys each walked alone.
    @Test func siblingsAfterAWalkAnswerAsIfEachWereWalked() {
        let inserted = [
            "uc/u1/c/at", "uc/u1/c/unread", "uc/u2/c/at", "uc/u2/c/unread", "totals/u1", "totals/u2",
            "uc/u1/c/at/deeper", "uc/u3",
        ]
        let probes = [
            "", "uc", "uc/u1", "uc/u1/c", "uc/u1/c/unread", "uc/u1/c/unread/x", "uc/u2", "uc/u2/c", "uc/u2/c/at",
            "uc/u2/d", "totals/u1/x",
            "totals", "totals/u2", "totals/u3", "uc/u1/c/at/deeper", "uc/u3", "uc/u3/c", "uc/u4", "zzz",
        ]
        for count in 1...inserted.count {
            var touched = TouchedKeys()
            var alone: [TouchedKeys] = []
            for path in inserted.prefix(count) {
                touched.insert(key(path), hash: SubtreeShapes.hash(key(path)))
                var one = TouchedKeys()
                one.insert(key(path))
                alone.append(one)
            }
            for probe in probes {
                let relations = alone.map { $0.relation(of: key(probe)) }
                let expected: TouchedKeys.Relation =
                    relations.contains(.nested) ? .nested : relations.contains(.same) ? .same : .none
                #expect(touched.relation(of: key(probe)) == expected, "\(count) \(probe)")
            }
        }
    }

    /// Keys that alternate between parents (a chat member's entry fields, then their unread
    /// total), with keys that contain earlier ones among them, inserted and asked about in
    /// random orders: the answers are those of keys each walked and asked about alone.
    @Test func keysAlternatingBetweenParentsAnswerAsIfEachWereWalked() {
        let pool = [
            "uc/u1/c/at", "uc/u1/c/unread", "totals/u1", "uc/u2/c/at", "uc/u2/c/unread", "totals/u2", "totals/u3",
            "uc/u3/c/at", "uc/u1/c", "uc/u2", "totals", "uc/u1/c/at/deeper", "uc/u4/c/at", "zzz/a",
        ]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<300 {
            let inserted = (0..<Int.random(in: 1...10, using: &generator)).map { _ in
                pool.randomElement(using: &generator)!
            }
            var touched = TouchedKeys()
            var alone: [TouchedKeys] = []
            for path in inserted {
                touched.insert(key(path), hash: SubtreeShapes.hash(key(path)))
                var one = TouchedKeys()
                one.insert(key(path))
                alone.append(one)
            }
            let probes = (0..<12).map { _ in pool.randomElement(using: &generator)! } + ["uc", "uc/u1", ""]
            func expected(_ probe: String) -> TouchedKeys.Relation {
                let relations = alone.map { $0.relation(of: key(probe)) }
                return relations.contains(.nested) ? .nested : relations.contains(.same) ? .same : .none
            }
            var answered: [TouchedKeys.Relation] = []
            touched.forEachRelation(of: probes.map(key), hashes: []) { _, relation in
                answered.append(relation)
                return true
            }
            #expect(answered == probes.map(expected), "\(inserted) \(probes)")
        }
    }

    /// With keys' hashes given, a touched key is found at once, and the answers are those of
    /// the walk over its ancestors; once touched keys nest, the walk answers again.
    @Test func knownHashesAnswerAsTheWalkDoes() {
        let paths = ["users/u1/unread", "chats/c1", "users/u2/unread", "users/u1", "", "users/u1/unread/x", "zzz"]
        var plain = TouchedKeys()
        var hashed = TouchedKeys()
        for inserted in ["users/u1/unread", "chats/c1", "users/u1/unread"] {
            plain.insert(key(inserted))
            hashed.insert(key(inserted), hash: SubtreeShapes.hash(key(inserted)))
        }
        for probe in paths {
            let expected = plain.relation(of: key(probe))
            #expect(hashed.relation(of: key(probe), hash: SubtreeShapes.hash(key(probe))) == expected, "\(probe)")
            #expect(hashed.relation(of: key(probe)) == expected, "\(probe)")
        }
        // A key inside a touched one: "users/u1/unread" is no longer just the same key.
        hashed.insert(key("users/u1/unread/deeper"), hash: SubtreeShapes.hash(key("users/u1/unread/deeper")))
        let unread = key("users/u1/unread")
        #expect(hashed.relation(of: unread, hash: SubtreeShapes.hash(unread)) == .nested)
        #expect(hashed.relation(of: key("chats/c1"), hash: SubtreeShapes.hash(key("chats/c1"))) == .same)
    }

    /// Keys asked together in key order, in runs of siblings (a write's counters), skip the
    /// walk over their ancestors after the first of a run whose ancestors are untouched: the
    /// answers are those of each key asked alone, with its hash and without.
    @Test func relationsOfSiblingRunsAnswerAsEachKeyAlone() {
        let probes = [
            "", "a/x/c/at", "a/x/c/unread", "a/x/d/at", "a/x/d/unread", "a/y/c/at", "a/y/c/unread", "t/x", "t/y",
            "t/y/z", "t/z", "u/x", "u/y", "zzz",
        ]
        let touchedSets = [
            ["a/x/c/unread"], ["a/x"], ["t/y"], ["t/y/z/w"], ["a/y/c/at", "t/x"], ["a/x/c/at/deep", "u"], [""],
            ["b/c"],
        ]
        for inserted in touchedSets {
            var touched = TouchedKeys()
            for path in inserted { touched.insert(key(path), hash: SubtreeShapes.hash(key(path))) }
            let probed = probes.map(key)
            for hashes in [probed.map(SubtreeShapes.hash), []] {
                var answers: [TouchedKeys.Relation] = []
                touched.forEachRelation(of: probed, hashes: hashes) { _, relation in
                    answers.append(relation)
                    return true
                }
                let alone = probed.indices.map {
                    touched.relation(of: probed[$0], hash: $0 < hashes.count ? hashes[$0] : nil)
                }
                #expect(answers == alone, "\(inserted) hashed: \(!hashes.isEmpty)")
            }
            // Stopped by the body: no answer after it.
            var asked = 0
            touched.forEachRelation(of: probed, hashes: []) { index, _ in
                asked += 1
                return index < 2
            }
            #expect(asked == 3)
        }
    }

    @Test func aLastChildReadIsChangedOnlyFromTheChildFoundOnOrFromAbove() {
        var touched = TouchedKeys()
        touched.insert(key("messages/c1/m2"))
        touched.insert(key("messages/c1/m4/text"))
        touched.insert(key("users/u1/unread"))
        let c1 = key("messages/c1")
        func found(_ child: String) -> [UInt8] { KeyEncoding.encode(ChildKey(child)) }
        // Staged children before the one found change neither which is last nor its subtree.
        #expect(!touched.touches(childrenOf: c1, from: found("m5")))
        // The child found itself (below it, too), or a later one.
        #expect(touched.touches(childrenOf: c1, from: found("m4")))
        #expect(touched.touches(childrenOf: c1, from: found("m3")))
        #expect(touched.touches(childrenOf: c1, from: found("m2")))
        // No child found: any staged child makes one.
        #expect(touched.touches(childrenOf: c1, from: nil))
        // Nothing staged inside or above.
        #expect(!touched.touches(childrenOf: key("messages/c2"), from: nil))
        // Below a staged leaf: the leaf is its ancestor.
        #expect(touched.touches(childrenOf: key("users/u1/unread/x"), from: nil))
        // A staged location at or above the parent changes every child.
        #expect(touched.touches(childrenOf: key("users/u1/unread"), from: found("z")))
        var above = TouchedKeys()
        above.insert(key("messages"))
        #expect(above.touches(childrenOf: c1, from: found("m9")))
        // Integer keys sort before string keys, and by value.
        var numbered = TouchedKeys()
        numbered.insert(key("list/10"))
        #expect(!numbered.touches(childrenOf: key("list"), from: found("a")))
        #expect(!numbered.touches(childrenOf: key("list"), from: found("11")))
        #expect(numbered.touches(childrenOf: key("list"), from: found("9")))
    }

    /// Whether staged writes add a child after a given one (an earlier message whose newer
    /// sibling is staged), leave that part alone, or replace the parent.
    @Test func laterChildrenAreAddedUntouchedOrReplaced() {
        var touched = TouchedKeys()
        touched.insert(key("messages/c1/m2"))
        touched.insert(key("messages/c1/m4/text"))
        touched.insert(key("users/u1/unread"))
        let c1 = key("messages/c1")
        func child(_ child: String) -> [UInt8] { KeyEncoding.encode(ChildKey(child)) }
        #expect(touched.laterChildren(of: c1, after: child("m3")) == .added)
        #expect(touched.laterChildren(of: c1, after: child("m1")) == .added)
        // Inside the child itself, or only before it: no later child.
        #expect(touched.laterChildren(of: c1, after: child("m4")) == .untouched)
        #expect(touched.laterChildren(of: c1, after: child("m5")) == .untouched)
        #expect(touched.laterChildren(of: key("messages/c2"), after: child("a")) == .untouched)
        // At or above the parent.
        #expect(touched.laterChildren(of: key("users/u1/unread"), after: child("a")) == .replaced)
        #expect(touched.laterChildren(of: key("users/u1/unread/x"), after: child("a")) == .replaced)
        var above = TouchedKeys()
        above.insert(key("messages"))
        #expect(above.laterChildren(of: c1, after: child("m9")) == .replaced)
        #expect(TouchedKeys().laterChildren(of: c1, after: child("m1")) == .untouched)
        // Integer keys sort before string keys, and by value.
        var numbered = TouchedKeys()
        numbered.insert(key("list/10"))
        #expect(numbered.laterChildren(of: key("list"), after: child("9")) == .added)
        #expect(numbered.laterChildren(of: key("list"), after: child("11")) == .untouched)
        #expect(numbered.laterChildren(of: key("list"), after: child("a")) == .untouched)
    }

    @Test func comparesKeysOfOtherTablesByteByByte() {
        var touched = TouchedKeys()
        let lookup: [UInt8] = Array("Pxlookup-entry".utf8)
        touched.insert(lookup)
        #expect(touched.relation(of: lookup) == .same)
        #expect(touched.relation(of: Array("Pxlookup".utf8)) == .nested)
        #expect(touched.relation(of: Array("Pxother".utf8)) == .none)
        #expect(touched.relation(of: key("Pxlookup-entry")) == .none)
    }
}

@Suite struct HashSet64Tests {
    @Test func holdsWhatWasInsertedThroughGrowthZeroIncluded() {
        var set = HashSet64(capacity: 4)
        var random = SeededRandom(state: 42)
        var inserted: [UInt64] = [0]
        let zeroIsNew = set.insert(0)
        #expect(zeroIsNew)
        for _ in 0..<5_000 {
            let value = UInt64.random(in: 0...UInt64.max, using: &random) & 0xFFFF_FFFF_0000_FFFF
            if set.insert(value) { inserted.append(value) }
        }
        #expect(set.count == Set(inserted).count)
        for value in inserted { #expect(set.contains(value)) }
        let again = set.insert(inserted[17])
        #expect(!again)
        var absent = 0
        for _ in 0..<1_000 where !set.contains(UInt64.random(in: 1...UInt64.max, using: &random) | 0x1_0000) {
            absent += 1
        }
        #expect(absent == 1_000)
    }
}

@Suite struct TriggerPatternTests {
    @Test func aWriteReachesAPatternFromAtAboveOrBelowItsLocations() throws {
        let pattern = try TriggerPattern("/users/$uid/phoneNumber")
        func update(_ base: String, _ relatives: [String]) throws -> Write {
            Write(.update(path(base), try relatives.map { UpdateEntry(path: path($0), value: try value("1")) }))
        }
        #expect(Write(.set(path("users/u1/phoneNumber"), try value("1"))).reaches(pattern))
        #expect(Write(.set(path("users"), try value("1"))).reaches(pattern))
        #expect(Write(.set(path("users/u1/phoneNumber/x"), try value("1"))).reaches(pattern))
        #expect(!Write(.set(path("users/u1/name"), try value("1"))).reaches(pattern))
        #expect(try update("", ["userChats/u1/c1/unread", "users/u2/phoneNumber"]).reaches(pattern))
        #expect(try !update("", ["userChats/u1/c1/unread", "unreadTotals/u1"]).reaches(pattern))
        #expect(try update("users", ["u1/phoneNumber"]).reaches(pattern))
        #expect(try update("users/u1", ["phoneNumber"]).reaches(pattern))
        #expect(try !update("users/u1", ["displayName"]).reaches(pattern))
        #expect(try !update("chats", ["users/phoneNumber"]).reaches(pattern))
    }

    /// The binary-search pre-check never says no where a location reaches the pattern, and says
    /// no where none lies at, above or below the pattern's literal keys.
    @Test func theSortedKeyPreCheckAgreesWithReaches() throws {
        let keys = KeySpace(namespaceID: 3)
        let patterns = try ["/users/$uid/phoneNumber", "/members/$chatId/$uid", "/$any/x", "/users/u1/name"]
            .map(TriggerPattern.init)
        let writes: [(String, [String])] = [
            ("", ["userChats/u1/c1/unread", "users/u2/phoneNumber"]),
            ("", ["userChats/u1/c1/unread", "unreadTotals/u1", "messages/c1/m1"]),
            ("", ["user", "usersx/u1/phoneNumber", "members0/c1/u1"]),
            ("", ["users"]), ("", ["members"]), ("users", ["u1/phoneNumber"]), ("users/u1", ["name", "age"]),
            ("users/u1", ["displayName"]), ("chats", ["users/phoneNumber"]), ("", ["a/x", "b"]),
            ("members/c1", ["u1", "u2"]), ("", ["users/u1/.priority", "zzz"]), ("", [""]),
        ]
        var refused = 0
        for (base, relatives) in writes {
            let write = Write(
                .update(path(base), try relatives.map { UpdateEntry(path: path($0), value: try value("1")) })
            )
            let locations = try WriteLocations(of: write, keys: keys)
            for pattern in patterns {
                let may = locations.reaches(fixed: pattern.fixedLocation, keys: keys)
                if write.reaches(pattern) { #expect(may, "\(base) \(relatives) \(pattern)") }
                if !may { refused += 1 }
            }
        }
        let set = Write(.set(path("users/u1"), try value("1")))
        #expect(try WriteLocations(of: set, keys: keys).reaches(fixed: patterns[0].fixedLocation, keys: keys))
        #expect(try !WriteLocations(of: set, keys: keys).reaches(fixed: patterns[1].fixedLocation, keys: keys))
        // Misses are found: the fan-out without users or members, the near-miss spellings.
        #expect(refused >= 14)
    }
}
