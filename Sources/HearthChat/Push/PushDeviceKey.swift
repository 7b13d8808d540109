/// A device's key in the push queue's memory (and in an earlier version's queue, followed by
/// the intent's key): uid, 0, device id, 0. Keys hold no control characters.
enum PushDeviceKey {
    static func of(uid: String, deviceId: String) -> [UInt8] {
        Array(uid.utf8) + [0] + Array(deviceId.utf8) + [0]
    }

    /// The uid and device id of a key `of(uid:deviceId:)` starts, with that prefix; nil for
    /// another key.
    static func device(of key: [UInt8]) -> (uid: String, deviceId: String, prefix: [UInt8])? {
        guard let first = key.firstIndex(of: 0), let second = key[(first + 1)...].firstIndex(of: 0) else {
            return nil
        }
        return (
            String(decoding: key[..<first], as: UTF8.self),
            String(decoding: key[(first + 1)..<second], as: UTF8.self),
            Array(key[...second])
        )
    }
}
