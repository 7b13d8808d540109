/// Objects: keys (through the key cache), members, nulls dropped, and the members' order.
extension TreeReader {
    /// Reads the key at the cursor (its opening quote), remembering it in `slot` of the cache.
    mutating func readKey(slot: Int) throws -> ScannedKey {
        let start = scanner.position
        let noInfo = TreeKeyBytes.SortInfo(w0: 0, w1: 0, flags: 0)
        if let (close, nonASCII) = findStringEnd(from: start) {
            let p = scanner.base + start + 1
            let n = close - start - 1
            if n > 1 && p[0] == UInt8(ascii: ".") {
                let kind: KeyKind?
                switch n {
                case 9 where Self.bytes(p, equal: ".priority"): kind = .priority
                case 6 where Self.bytes(p, equal: ".value"): kind = .value
                case 3 where Self.bytes(p, equal: ".sv"): kind = .serverValue
                default: kind = nil
                }
                if let kind {
                    scanner.position = close + 1
                    return ScannedKey(key: ChildKey(validated: "", intValue: nil), info: noInfo, kind: kind)
                }
            }
            let bytes = UnsafeBufferPointer(start: p, count: n)
            if !nonASCII || TreeKeyBytes.isValidUTF8(p, count: n) {
                let string = String(decoding: bytes, as: UTF8.self)
                scanner.position = close + 1
                if let problem = KeyValidator.problem(bytes: bytes) {
                    return ScannedKey(key: ChildKey(string), info: noInfo, kind: .child, problem: problem)
                }
                let intValue = TreeKeyBytes.intValue(p, count: n)
                let key = ChildKey(validated: string, intValue: intValue)
                let readable = scanner.end - (start + 1)
                let info = TreeKeyBytes.sortInfo(p, count: n, readable: readable, isInt: intValue != nil)
                if n <= 16 && readable >= 17, let keyCache {
                    let entry = keyCache + slot
                    entry.pointee.rawLo = UnsafeRawPointer(p).loadUnaligned(as: UInt64.self) & TreeKeyBytes.lowMask(n)
                    entry.pointee.rawHi =
                        n > 8 ? UnsafeRawPointer(p + 8).loadUnaligned(as: UInt64.self) & TreeKeyBytes.lowMask(n - 8) : 0
                    entry.pointee.count = n
                    entry.pointee.key = key
                    entry.pointee.info = info
                }
                return ScannedKey(key: key, info: info, kind: .child)
            }
        }
        // Escapes, control characters, invalid UTF-8 or a cut-off key.
        let string = try scanStringExactly(from: start)
        switch string {
        case ".priority": return ScannedKey(key: ChildKey(validated: "", intValue: nil), info: noInfo, kind: .priority)
        case ".value": return ScannedKey(key: ChildKey(validated: "", intValue: nil), info: noInfo, kind: .value)
        case ".sv": return ScannedKey(key: ChildKey(validated: "", intValue: nil), info: noInfo, kind: .serverValue)
        default: break
        }
        let key = ChildKey(string)
        var copy = string
        return copy.withUTF8 { bytes in
            if let problem = KeyValidator.problem(bytes: bytes) {
                return ScannedKey(key: key, info: noInfo, kind: .child, problem: problem)
            }
            let info = TreeKeyBytes.sortInfo(
                bytes.baseAddress!,
                count: bytes.count,
                readable: bytes.count,
                isInt: key.intValue != nil
            )
            return ScannedKey(key: key, info: info, kind: .child)
        }
    }

    @inline(__always)
    static func bytes(_ p: UnsafePointer<UInt8>, equal text: StaticString) -> Bool {
        let t = text.utf8Start
        for i in 0..<text.utf8CodeUnitCount where p[i] != t[i] { return false }
        return true
    }

    mutating func object(rawDepth: Int) throws -> Node? {
        guard rawDepth <= JSONParser.maxNesting else {
            throw CoreError.nestingTooDeep(byte: scanner.byte(scanner.position))
        }
        let objectStart = scanner.position
        scanner.position += 1
        let base = members.count
        let serverValuesBefore = serverValues.count
        /// Null members, with the number of members before them (for last-wins duplicates).
        var nulls: [(key: ChildKey, position: Int)] = []
        var priority: Priority?
        var sawValue = false
        var sawChild = false
        var valueNode: Node?
        var serverValue: JSONValue?
        if try next() == UInt8(ascii: "}") {
            scanner.position += 1
            return nil
        }
        // The cache pays off from the second object on (keys repeat across siblings); a
        // document of one flat object, like most realtime writes, never allocates it.
        if keyCache == nil {
            if sawObject {
                let cache = UnsafeMutablePointer<CachedTreeKey>.allocate(capacity: Self.keyCacheSlots)
                cache.initialize(repeating: CachedTreeKey(), count: Self.keyCacheSlots)
                keyCache = cache
            }
            sawObject = true
        }
        let cache = keyCache
        var memberIndex = 0
        while true {
            guard try next() == 0x22 else { throw CoreError.expectedKey(scanner.byte(scanner.position)) }
            let keyStart = scanner.position
            let slot = (depth &* 8 &+ min(memberIndex, 7)) & (Self.keyCacheSlots - 1)
            memberIndex &+= 1
            var scanned: ScannedKey
            let entry = cache.map { $0 + slot }
            let cachedCount = entry?.pointee.count ?? 0
            if let entry,
                cachedCount != 0 && keyStart &+ 18 <= scanner.end
                    && (UnsafeRawPointer(scanner.base + keyStart + 1).loadUnaligned(as: UInt64.self)
                        & TreeKeyBytes.lowMask(cachedCount)) == entry.pointee.rawLo
                    && (cachedCount <= 8
                        || (UnsafeRawPointer(scanner.base + keyStart + 9).loadUnaligned(as: UInt64.self)
                            & TreeKeyBytes.lowMask(cachedCount &- 8)) == entry.pointee.rawHi)
                    && scanner.base[keyStart &+ 1 &+ cachedCount] == 0x22
            {
                scanned = ScannedKey(key: entry.pointee.key, info: entry.pointee.info, kind: .child)
                scanner.position = keyStart &+ cachedCount &+ 2
            } else {
                scanned = try readKey(slot: slot)
            }
            guard try next() == UInt8(ascii: ":") else { throw CoreError.expectedColon(scanner.byte(scanner.position)) }
            scanner.position += 1
            switch scanned.kind {
            case .priority:
                priority = try priorityValue(rawDepth: rawDepth)
            case .value:
                sawValue = true
                if sawChild { throw CoreError.valueWithChildren(at: pathDescription) }
                valueNode = try value(rawDepth: rawDepth)
            case .serverValue:
                _ = try next()
                serverValue = try JSONParser.readValue(&scanner, depth: rawDepth)
            case .child:
                sawChild = true
                if sawValue { throw CoreError.valueWithChildren(at: pathDescription) }
                if let problem = scanned.problem {
                    throw KeyValidator.error(
                        problem,
                        key: scanned.key.string,
                        path: KeyValidator.describe(basePath.keys + pathKeys() + [scanned.key])
                    )
                }
                try push(keyStart)
                if let node = try value(rawDepth: rawDepth) {
                    members.push(scanned.key, node, scanned.info)
                } else {
                    nulls.append((scanned.key, members.count - base))
                }
                depth -= 1
            }
            let c = try next()
            scanner.position += 1
            if c == UInt8(ascii: ",") { continue }
            if c == UInt8(ascii: "}") { break }
            throw CoreError.expectedAfterMember(scanner.byte(scanner.position - 1))
        }
        let children = takeMembers(from: base, nulls: nulls)
        if let serverValue {
            guard !sawChild, !sawValue, priority == nil, let parsed = Self.serverValue(serverValue) else {
                let text = Self.objectText(scanner: scanner, from: objectStart)
                throw CoreError.invalidServerValue(text, at: pathDescription)
            }
            serverValues.append(ServerValuePlacement(path: DataPath(keys: pathKeys()), value: parsed))
            return nil
        }
        let node: Node?
        if sawValue {
            node = valueNode
        } else if let children {
            node = .children(children, priority: nil)
        } else {
            node = nil
        }
        guard let node else {
            // Only server values inside (`{"a": {".sv": ...}, ".priority": 1}`): keep the
            // priority on an empty node, which `ServerValueResolver.resolve` fills in.
            if priority != nil && serverValues[serverValuesBefore...].contains(where: { !$0.isPriority }) {
                return .children(Children(), priority: priority)
            }
            return nil
        }
        return priority == nil ? node : node.withPriority(priority)
    }

    /// The members collected since `base`, sorted (duplicates: the last wins), removed from
    /// the member stack; nil when there are none.
    mutating func takeMembers(from base: Int, nulls: [(key: ChildKey, position: Int)]) -> Children? {
        let count = members.count - base
        if nulls.isEmpty {
            if count == 0 { return nil }
            var i = base + 1
            while i < members.count {
                if members.compare(i - 1, i) >= 0 { break }
                i += 1
            }
            if i == members.count { return members.take(from: base) }
            return sortedMembers(from: base)
        }
        // Nulls: merge them back in document order, sort stably, keep the last of equal
        // keys, drop nulls.
        var keys: [ChildKey] = []
        var nodes: [Node?] = []
        keys.reserveCapacity(count + nulls.count)
        nodes.reserveCapacity(count + nulls.count)
        var nullIndex = 0
        for i in 0...count {
            while nullIndex < nulls.count && nulls[nullIndex].position == i {
                keys.append(nulls[nullIndex].key)
                nodes.append(nil)
                nullIndex += 1
            }
            if i < count {
                keys.append((members.keys + base + i).move())
                nodes.append((members.nodes + base + i).move())
            }
        }
        members.count = base
        let pairs = Children.sortedLastWins(keys: keys, nodes: nodes)
        var k: [ChildKey] = []
        var n: [Node] = []
        k.reserveCapacity(pairs.count)
        n.reserveCapacity(pairs.count)
        for (key, node) in pairs {
            if let node {
                k.append(key)
                n.append(node)
            }
        }
        return k.isEmpty ? nil : Children(sortedKeys: k, nodes: n)
    }

    /// Sorts the members from `base` on (stable; the last of equal keys wins) into `Children`.
    mutating func sortedMembers(from base: Int) -> Children {
        let count = members.count - base
        return withUnsafeTemporaryAllocation(of: Int.self, capacity: count) { order in
            withUnsafeTemporaryAllocation(of: Bool.self, capacity: count) { keep in
                for j in 0..<count { order[j] = j }
                if count <= 32 {
                    for i in 1..<count {
                        let x = order[i]
                        var j = i
                        while j > 0 && members.compare(base + order[j - 1], base + x) > 0 {
                            order[j] = order[j - 1]
                            j -= 1
                        }
                        order[j] = x
                    }
                } else {
                    let stack = members
                    var order = order
                    order.sort {
                        let c = stack.compare(base + $0, base + $1)
                        return c != 0 ? c < 0 : $0 < $1
                    }
                }
                var kept = 0
                for j in 0..<count {
                    keep[j] = j == count - 1 || members.compare(base + order[j], base + order[j + 1]) != 0
                    if keep[j] { kept += 1 }
                }
                return members.take(from: base, order: order, kept: kept, keep: keep)
            }
        }
    }
}

extension Children {
    /// Pairs sorted by key where, among equal keys, only the last in input order is kept.
    static func sortedLastWins(keys: [ChildKey], nodes: [Node?]) -> [(ChildKey, Node?)] {
        var order = Array(0..<keys.count)
        order.sort {
            let c = ChildKey.compare(keys[$0], keys[$1])
            return c != 0 ? c < 0 : $0 < $1
        }
        var result: [(ChildKey, Node?)] = []
        result.reserveCapacity(keys.count)
        for index in order {
            if let last = result.last, last.0 == keys[index] {
                result[result.count - 1] = (keys[index], nodes[index])
            } else {
                result.append((keys[index], nodes[index]))
            }
        }
        return result
    }
}
