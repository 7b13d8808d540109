/// Reads the `.indexOn` entries of a rules document (`{"rules": {...}}`, comments allowed).
public enum RulesIndexes {
    /// Every index the rules declare, in document order, without duplicates.
    /// - Throws: `CoreError` for malformed JSON or a malformed `.indexOn`, naming the location.
    public static func extract(fromRulesDocument bytes: [UInt8]) throws -> [IndexSpec] {
        let document = try JSONParser.parse(bytes, allowComments: true)
        guard case .object = document else { throw CoreError.rulesNotObject(document.kindDescription) }
        guard let rules = document["rules"] else { throw CoreError.rulesMissing() }
        var specs: [IndexSpec] = []
        try walk(rules, location: [], into: &specs)
        var seen = Set<IndexSpec>()
        return specs.filter { seen.insert($0).inserted }
    }

    static func describe(_ location: [IndexSpec.Segment]) -> String {
        "/rules" + location.map { segment -> String in
            switch segment {
            case .key(let key): return "/" + key.string
            case .wildcard(let name): return "/" + name
            }
        }.joined()
    }

    static func walk(_ value: JSONValue, location: [IndexSpec.Segment], into specs: inout [IndexSpec]) throws {
        guard case .object(let members) = value else {
            // `".read": true` style leaves are handled by the caller; anything else is malformed.
            throw CoreError.rulesEntryNotObject(describe(location), found: value.kindDescription)
        }
        for (key, child) in members {
            if key == ".indexOn" {
                try indexOn(child, location: location, into: &specs)
            } else if key.hasPrefix(".") {
                continue  // .read, .write, .validate, ...: not this reader's business
            } else if key.hasPrefix("$") {
                try walk(child, location: location + [.wildcard(key)], into: &specs)
            } else {
                guard KeyValidator.isValid(key) else {
                    throw CoreError.rulesInvalidKey(describe(location), key: key)
                }
                try walk(child, location: location + [.key(ChildKey(key))], into: &specs)
            }
        }
    }

    static func indexOn(_ value: JSONValue, location: [IndexSpec.Segment], into specs: inout [IndexSpec]) throws {
        let here = describe(location) + "/.indexOn"
        let entries: [String]
        switch value {
        case .string(let s):
            entries = [s]
        case .array(let elements):
            entries = try elements.map { element in
                guard case .string(let s) = element else {
                    throw CoreError.indexOnInvalid(here, found: element.kindDescription)
                }
                return s
            }
        default:
            throw CoreError.indexOnInvalid(here, found: value.kindDescription)
        }
        for entry in entries {
            if entry == ".value" {
                specs.append(IndexSpec(location: location, indexed: .value))
                continue
            }
            let parts = entry.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
            guard !parts.isEmpty, parts.count <= KeyValidator.maxDepth, parts.allSatisfy(KeyValidator.isValid) else {
                throw CoreError.indexOnInvalidPath(here, entry: entry)
            }
            specs.append(IndexSpec(location: location, indexed: .child(DataPath(keys: parts.map(ChildKey.init)))))
        }
    }
}
