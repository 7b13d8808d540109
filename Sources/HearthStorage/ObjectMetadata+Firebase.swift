import Foundation

extension ObjectMetadata {
    /// The object's metadata as Firebase's client API (`/v0/b/{bucket}/o/{name}`) answers it:
    /// `generation`, `metageneration` and `size` as decimal strings, times as
    /// `YYYY-MM-DDTHH:MM:SS.mmmZ`, `contentType` `application/octet-stream` and
    /// `contentEncoding` `identity` when unset, `metadata` only when there is some, and the
    /// download tokens comma-separated.
    public var firebaseResource: FirebaseObjectResource {
        FirebaseObjectResource(
            name: name,
            bucket: bucket,
            generation: generation,
            metageneration: String(metageneration),
            contentType: contentType ?? "application/octet-stream",
            timeCreated: Self.timestamp(timeCreated),
            updated: Self.timestamp(updated),
            storageClass: "STANDARD",
            size: String(size),
            md5Hash: md5Hash,
            crc32c: crc32c,
            etag: Data("\(generation)/\(metageneration)".utf8).base64EncodedString(),
            contentEncoding: contentEncoding ?? "identity",
            contentDisposition: contentDisposition,
            cacheControl: cacheControl,
            contentLanguage: contentLanguage,
            metadata: metadata.isEmpty ? nil : metadata,
            downloadTokens: downloadTokens.isEmpty ? nil : downloadTokens.joined(separator: ",")
        )
    }

    /// `milliseconds` since 1970 as RFC 3339 in UTC with milliseconds.
    static func timestamp(_ milliseconds: Double) -> String {
        let whole = Int64(milliseconds.rounded(.down))
        let seconds = Int64((Double(whole) / 1000).rounded(.down))
        let millis = whole - seconds * 1000
        let date = Date(timeIntervalSince1970: TimeInterval(seconds))
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        func two(_ value: Int?) -> String { value.map { $0 < 10 ? "0\($0)" : "\($0)" } ?? "00" }
        let year = parts.year.map { String(format: "%04d", $0) } ?? "1970"
        let milli = millis < 10 ? "00\(millis)" : millis < 100 ? "0\(millis)" : "\(millis)"
        return
            "\(year)-\(two(parts.month))-\(two(parts.day))T\(two(parts.hour)):\(two(parts.minute)):\(two(parts.second)).\(milli)Z"
    }
}

/// Firebase's object metadata (the client API's JSON), field by field; absent optionals are
/// left out.
public struct FirebaseObjectResource: Encodable, Equatable, Sendable {
    public var name: String
    public var bucket: String
    public var generation: String
    public var metageneration: String
    public var contentType: String
    public var timeCreated: String
    public var updated: String
    public var storageClass: String
    public var size: String
    public var md5Hash: String
    public var crc32c: String
    public var etag: String
    public var contentEncoding: String
    public var contentDisposition: String?
    public var cacheControl: String?
    public var contentLanguage: String?
    public var metadata: [String: String]?
    public var downloadTokens: String?
}
