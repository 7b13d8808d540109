import HearthCore

/// The bytes of a `CommittedWrite` in the commit log: a kind byte (`s` set, `u` update, `r`
/// reset), the location, then the node (set) or the entries (update). A path is a 2-byte key
/// count and each key as a 4-byte length and UTF-8; a node is `0` (null) or `1`, a 4-byte
/// length and its export JSON. Lengths are big-endian.
enum CommitLogCodec {
    static func encode(_ commit: CommittedWrite) -> [UInt8] {
        var out: [UInt8] = []
        switch commit.kind {
        case .set(let node):
            out.append(UInt8(ascii: "s"))
            append(commit.location, to: &out)
            append(node, to: &out)
        case .update(let entries):
            out.append(UInt8(ascii: "u"))
            append(commit.location, to: &out)
            appendLength(entries.count, to: &out)
            for entry in entries {
                append(entry.path, to: &out)
                append(entry.node, to: &out)
            }
        case .reset:
            out.append(UInt8(ascii: "r"))
            append(commit.location, to: &out)
        }
        return out
    }

    /// - Throws: `StoreError` `.corrupt` for bytes `encode` did not make.
    static func decode(_ bytes: [UInt8], sequence: UInt64) throws -> CommittedWrite {
        var reader = ByteReader(bytes: bytes)
        let kind = try reader.byte()
        let location = try reader.path()
        switch kind {
        case UInt8(ascii: "s"):
            return CommittedWrite(sequence: sequence, location: location, kind: .set(try reader.node()))
        case UInt8(ascii: "u"):
            var entries: [(path: DataPath, node: Node?)] = []
            for _ in 0..<(try reader.length()) { entries.append((try reader.path(), try reader.node())) }
            return CommittedWrite(sequence: sequence, location: location, kind: .update(entries))
        case UInt8(ascii: "r"):
            return CommittedWrite(sequence: sequence, location: location, kind: .reset)
        default:
            throw ByteReader.corrupt
        }
    }

    private static func appendLength(_ count: Int, to out: inout [UInt8]) {
        KeySpace.appendBigEndian(UInt32(truncatingIfNeeded: count), to: &out)
    }

    private static func append(_ path: DataPath, to out: inout [UInt8]) {
        out.append(UInt8(truncatingIfNeeded: path.depth >> 8))
        out.append(UInt8(truncatingIfNeeded: path.depth))
        for key in path.keys {
            let utf8 = Array(key.string.utf8)
            appendLength(utf8.count, to: &out)
            out += utf8
        }
    }

    private static func append(_ node: Node?, to out: inout [UInt8]) {
        guard let node else { return out.append(0) }
        out.append(1)
        let json = JSONRenderer.render(node, format: .export)
        appendLength(json.count, to: &out)
        out += json
    }

    private struct ByteReader {
        static let corrupt = StoreError(.corrupt, "A commit log entry could not be decoded.")
        let bytes: [UInt8]
        var offset = 0

        mutating func byte() throws -> UInt8 {
            guard offset < bytes.count else { throw Self.corrupt }
            offset += 1
            return bytes[offset - 1]
        }

        mutating func take(_ count: Int) throws -> ArraySlice<UInt8> {
            guard count >= 0, offset + count <= bytes.count else { throw Self.corrupt }
            offset += count
            return bytes[(offset - count)..<offset]
        }

        mutating func length() throws -> Int {
            Int(KeySpace.decodeBigEndian(try take(4)))
        }

        mutating func path() throws -> DataPath {
            let depth = Int(try byte()) << 8 | Int(try byte())
            var keys: [ChildKey] = []
            for _ in 0..<depth {
                keys.append(ChildKey(String(decoding: try take(try length()), as: UTF8.self)))
            }
            return DataPath(keys: keys)
        }

        mutating func node() throws -> Node? {
            guard try byte() == 1 else { return nil }
            do {
                return try TreeParser.parse(try take(try length()), at: .root).node
            } catch {
                throw Self.corrupt
            }
        }
    }
}
