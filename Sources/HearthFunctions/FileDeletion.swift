public import HearthCore

/// A file a database change leaves behind, to be deleted once the change committed: queued
/// as a job (`ServerJob`, queue `FileDeletion.queue`) in the change's own commit, so it exists
/// exactly when the change does, and carried out by the server's file-deletion worker, which
/// removes the job only once the file(s) are gone (at least once, whatever crashes).
/// Deletions are the server's own, in the default bucket.
public enum FileDeletion: Sendable, Hashable {
    /// The object a Firebase download URL names (`…/v0/b/{bucket}/o/{name}?alt=media…`), when
    /// it is in the default bucket and its name starts with `prefix`; anything else (another
    /// host's URL, another folder) is left alone. The URL is parsed by the storage that
    /// carries the job out.
    case object(downloadURL: String, under: String)
    /// Every object whose name starts with `prefix`, a folder ending in `/` (`chats/c1/`).
    case folder(String)

    /// The jobs' queue.
    public static let queue = "files.delete"

    /// The job to queue: its payload is `{"downloadUrl": url, "under": prefix}` or
    /// `{"folder": prefix}`.
    public var job: ServerJob {
        let fields: [(String, JSONValue)]
        switch self {
        case .object(let url, let prefix): fields = [("downloadUrl", .string(url)), ("under", .string(prefix))]
        case .folder(let prefix): fields = [("folder", .string(prefix))]
        }
        var payload: [UInt8] = []
        JSONRenderer.render(.object(fields), into: &payload)
        return ServerJob(queue: Self.queue, payload: payload)
    }

    /// The deletion a job's payload names; nil for a payload that is not one (a job nothing
    /// can carry out).
    public init?(payload: [UInt8]) {
        guard case .object(let fields)? = try? JSONParser.parse(payload) else { return nil }
        func string(_ name: String) -> String? {
            guard case .string(let value)? = fields.first(where: { $0.0 == name })?.1 else { return nil }
            return value
        }
        if let prefix = string("folder"), prefix.count > 1, prefix.hasSuffix("/") {
            self = .folder(prefix)
        } else if let url = string("downloadUrl"), let prefix = string("under"), !prefix.isEmpty {
            self = .object(downloadURL: url, under: prefix)
        } else {
            return nil
        }
    }
}
