import Foundation

/// The rules documents each namespace had in force, newest last, kept beside the data so that
/// they survive restarts and a console can diff and roll back (at most `rulesHistoryLimit` per
/// namespace). Key: `H` + namespace name (UTF-8) + `0x00` + version (8 bytes, big-endian);
/// value: `RulesVersion` as JSON. Not namespace data: no sequence number, no listener.
extension Store {
    /// How many versions a namespace keeps.
    public static let rulesHistoryLimit = 20

    static let rulesHistoryTable = UInt8(ascii: "H")

    /// One rules document that was in force.
    public struct RulesVersion: Sendable, Equatable, Codable {
        /// Counts up per namespace from 1.
        public var version: UInt64
        /// Milliseconds since 1970 when it was put in force.
        public var publishedAt: Double
        /// How it came: `put` (the REST API or a rollback), `file` (an edit of the file), `load`.
        public var origin: String
        public var text: String
    }

    private static func rulesHistoryPrefix(_ namespace: String) -> [UInt8] {
        [rulesHistoryTable] + Array(namespace.utf8) + [0]
    }

    /// The namespace's versions, oldest first.
    public func rulesHistory(_ namespace: String) throws -> [RulesVersion] {
        let prefix = Self.rulesHistoryPrefix(namespace)
        return try db.withSnapshot { snapshot in
            var versions: [RulesVersion] = []
            let cursor = snapshot.makeIterator()
            cursor.seek(prefix)
            while cursor.hasPrefix(prefix) {
                if let version = try? JSONDecoder().decode(RulesVersion.self, from: Data(cursor.valueBytes)) {
                    versions.append(version)
                }
                cursor.next()
            }
            return versions
        }
    }

    /// Records `text` as the namespace's newest version unless it already is; drops the oldest
    /// past the limit. Callers serialise per namespace (the rules catalog does).
    @discardableResult
    public func recordRules(
        _ text: String,
        for namespace: String,
        origin: String,
        at time: Double
    ) throws
        -> RulesVersion?
    {
        let history = try rulesHistory(namespace)
        if history.last?.text == text { return nil }
        let entry = RulesVersion(
            version: (history.last?.version ?? 0) + 1,
            publishedAt: time,
            origin: origin,
            text: text
        )
        let batch = WriteBatch()
        batch.put(key(entry.version, namespace), Array(try JSONEncoder().encode(entry)))
        for old in history.dropLast(max(0, Self.rulesHistoryLimit - 1)) {
            batch.delete(key(old.version, namespace))
        }
        try db.write(batch, sync: true)
        return entry
    }

    private func key(_ version: UInt64, _ namespace: String) -> [UInt8] {
        var key = Self.rulesHistoryPrefix(namespace)
        for shift in stride(from: 56, through: 0, by: -8) {
            key.append(UInt8(truncatingIfNeeded: version >> UInt64(shift)))
        }
        return key
    }
}
