/// The bytes of one batch of a shared log (`SharedLog`): its puts and deletes in order.
///
/// Layout: a version byte (1), then per change: the key's length (u32, big-endian), the key,
/// a flag (1 put, 0 delete) and, for a put, the value's length (u32) and the value.
public enum SharedLogBatch {
    public typealias Change = (key: [UInt8], value: [UInt8]?)

    public static func encode(_ changes: [Change]) -> [UInt8] {
        var out: [UInt8] = [1]
        for change in changes {
            append(UInt32(change.key.count), to: &out)
            out += change.key
            if let value = change.value {
                out.append(1)
                append(UInt32(value.count), to: &out)
                out += value
            } else {
                out.append(0)
            }
        }
        return out
    }

    /// The changes of `bytes`, or nil when they are not a batch of this layout.
    public static func decode(_ bytes: [UInt8]) -> [Change]? {
        guard bytes.first == 1 else { return nil }
        var changes: [Change] = []
        var index = 1
        while index < bytes.count {
            guard let keyLength = readLength(bytes, &index), index + keyLength < bytes.count else { return nil }
            let key = Array(bytes[index..<index + keyLength])
            index += keyLength
            let flag = bytes[index]
            index += 1
            switch flag {
            case 0:
                changes.append((key, nil))
            case 1:
                guard let valueLength = readLength(bytes, &index), index + valueLength <= bytes.count else {
                    return nil
                }
                changes.append((key, Array(bytes[index..<index + valueLength])))
                index += valueLength
            default:
                return nil
            }
        }
        return changes
    }

    private static func append(_ value: UInt32, to out: inout [UInt8]) {
        out += [UInt8(value >> 24), UInt8(value >> 16 & 0xff), UInt8(value >> 8 & 0xff), UInt8(value & 0xff)]
    }

    private static func readLength(_ bytes: [UInt8], _ index: inout Int) -> Int? {
        guard index + 4 <= bytes.count else { return nil }
        let value = bytes[index..<index + 4].reduce(0) { $0 << 8 | Int($1) }
        index += 4
        return value
    }
}
