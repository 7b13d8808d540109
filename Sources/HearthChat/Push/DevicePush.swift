/// One device's push of a planned intent, as queued in `PushQueues.deliveries` under
/// `PlannedPush.deviceKey(uid:deviceId:)` + the intent's key: what differs from device to
/// device, in a few bytes (the rest is the intent's `PushContent`). The token is not kept, only
/// its hash: the push goes to the device's token when it is sent, and only if that is still the
/// token it was planned for (a device registered again with another token gets nothing more
/// that was planned for the old one).
public struct DevicePush: Sendable, Equatable {
    /// The push's place among its intent's pushes (its id's last part).
    public var index: Int
    /// The recipient's badge (their unread total).
    public var badge: Int
    /// `DevicePush.hash(token:)` of the token it was planned for.
    public var tokenHash: UInt64

    public init(index: Int, badge: Int, tokenHash: UInt64) {
        self.index = index
        self.badge = badge
        self.tokenHash = tokenHash
    }

    /// The format's first byte.
    static let version: UInt8 = 1

    /// The entry's payload: the version, the index and badge as LEB128 varints, the hash in 8
    /// bytes, little-endian.
    public func encoded() -> [UInt8] {
        var out: [UInt8] = [Self.version]
        out.reserveCapacity(16)
        Self.appendVarint(UInt64(max(0, index)), to: &out)
        Self.appendVarint(UInt64(max(0, badge)), to: &out)
        withUnsafeBytes(of: tokenHash.littleEndian) { out.append(contentsOf: $0) }
        return out
    }

    /// The entry `encoded()` made; nil for anything else.
    public init?(decoding bytes: [UInt8]) {
        guard bytes.first == Self.version else { return nil }
        var at = 1
        guard let index = Self.varint(bytes, at: &at), let badge = Self.varint(bytes, at: &at),
            bytes.count == at + 8, index <= UInt64(Int.max), badge <= UInt64(Int.max)
        else { return nil }
        var hash: UInt64 = 0
        for (shift, byte) in bytes[at...].enumerated() { hash |= UInt64(byte) << (8 * UInt64(shift)) }
        self.init(index: Int(index), badge: Int(badge), tokenHash: hash)
    }

    /// A token's 64-bit FNV-1a hash.
    public static func hash(token: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in token.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return hash
    }

    private static func appendVarint(_ value: UInt64, to out: inout [UInt8]) {
        var value = value
        while value >= 0x80 {
            out.append(UInt8(value & 0x7f) | 0x80)
            value >>= 7
        }
        out.append(UInt8(value))
    }

    private static func varint(_ bytes: [UInt8], at: inout Int) -> UInt64? {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while at < bytes.count, shift < 64 {
            let byte = bytes[at]
            at += 1
            value |= UInt64(byte & 0x7f) << shift
            if byte < 0x80 { return value }
            shift += 7
        }
        return nil
    }
}
