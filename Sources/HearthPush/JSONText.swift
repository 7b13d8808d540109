/// A small JSON writer for bodies whose key order matters (a signed webhook body) or that must
/// be exact (FCM's message): objects of strings, integers and nested objects.
struct JSONText {
    private(set) var bytes: [UInt8] = []

    /// Writes one object; `fields` adds its members in order.
    mutating func object(_ fields: (inout ObjectWriter) -> Void) {
        var writer = ObjectWriter()
        fields(&writer)
        bytes += writer.finish()
    }

    struct ObjectWriter {
        private var bytes: [UInt8] = [UInt8(ascii: "{")]
        private var first = true

        mutating func field(_ key: String, string value: String) {
            writeKey(key)
            JSONText.appendQuoted(value, to: &bytes)
        }

        mutating func field(_ key: String, integer value: Int) {
            writeKey(key)
            bytes += Array(String(value).utf8)
        }

        mutating func field(_ key: String, object fields: (inout ObjectWriter) -> Void) {
            writeKey(key)
            var nested = ObjectWriter()
            fields(&nested)
            bytes += nested.finish()
        }

        private mutating func writeKey(_ key: String) {
            if !first { bytes.append(UInt8(ascii: ",")) }
            first = false
            JSONText.appendQuoted(key, to: &bytes)
            bytes.append(UInt8(ascii: ":"))
        }

        fileprivate mutating func finish() -> [UInt8] {
            bytes.append(UInt8(ascii: "}"))
            return bytes
        }
    }

    /// `value` as a JSON string: quotes, backslashes and control characters escaped, the rest as UTF-8.
    static func appendQuoted(_ value: String, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes += [UInt8(ascii: "\\"), UInt8(ascii: "\"")]
            case UInt8(ascii: "\\"): bytes += [UInt8(ascii: "\\"), UInt8(ascii: "\\")]
            case 0x0A: bytes += [UInt8(ascii: "\\"), UInt8(ascii: "n")]
            case 0x0D: bytes += [UInt8(ascii: "\\"), UInt8(ascii: "r")]
            case 0x09: bytes += [UInt8(ascii: "\\"), UInt8(ascii: "t")]
            case 0x00..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                bytes += Array("\\u00".utf8) + [hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
