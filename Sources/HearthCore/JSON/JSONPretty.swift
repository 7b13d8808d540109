/// Re-indents compact JSON the way Firebase answers `print=pretty`: objects one member per line
/// with a 2-space indent and `"key" : value`, arrays inline as `[ 1, 2 ]`, empty containers as
/// `{ }` and `[ ]`.
public enum JSONPretty {
    /// The pretty form of `compact` (whitespace outside strings is ignored).
    public static func reformat(_ compact: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(compact.count + compact.count / 2)
        var level = 0
        // For each open container: true when it is an object.
        var stack: [Bool] = []
        var i = 0
        let n = compact.count
        func newline(_ out: inout [UInt8], _ level: Int) {
            out.append(0x0A)
            for _ in 0..<(2 * level) { out.append(0x20) }
        }
        func nextSignificant(_ from: Int) -> Int {
            var j = from
            while j < n && (compact[j] == 0x20 || compact[j] == 0x0A || compact[j] == 0x0D || compact[j] == 0x09) {
                j += 1
            }
            return j
        }
        while i < n {
            let b = compact[i]
            switch b {
            case 0x22:
                // Copy the string verbatim.
                var j = i + 1
                while j < n && compact[j] != 0x22 {
                    if compact[j] == 0x5C { j += 1 }
                    j += 1
                }
                out.append(contentsOf: compact[i..<min(j + 1, n)])
                i = j + 1
                continue
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                let isObject = b == UInt8(ascii: "{")
                let close = isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")
                let j = nextSignificant(i + 1)
                if j < n && compact[j] == close {
                    out.append(b)
                    out.append(0x20)
                    out.append(close)
                    i = j + 1
                    continue
                }
                out.append(b)
                stack.append(isObject)
                if isObject {
                    level += 1
                    newline(&out, level)
                } else {
                    out.append(0x20)
                }
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                let isObject = stack.popLast() ?? true
                if isObject {
                    level -= 1
                    newline(&out, level)
                } else {
                    out.append(0x20)
                }
                out.append(b)
            case UInt8(ascii: ","):
                out.append(b)
                if stack.last ?? false {
                    newline(&out, level)
                } else {
                    out.append(0x20)
                }
            case UInt8(ascii: ":"):
                out.append(contentsOf: [0x20, UInt8(ascii: ":"), 0x20])
            case 0x20, 0x0A, 0x0D, 0x09:
                break
            default:
                out.append(b)
            }
            i += 1
        }
        return out
    }
}
