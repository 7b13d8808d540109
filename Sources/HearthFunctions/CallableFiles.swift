/// The server's files (Firebase Storage), as server-side functions remove them: what a deleted
/// message, chat or account leaves behind. Deletions are the server's own (no storage rules),
/// in the default bucket, and best effort: an object already gone is no error, and a failure is
/// logged rather than undoing the database change that asked for it.
public protocol CallableFiles: Sendable {
    /// Deletes the object a Firebase download URL names (`…/v0/b/{bucket}/o/{name}?alt=media…`)
    /// when it is in this server's default bucket and its name starts with `prefix`; anything
    /// else (another host's URL, another folder) is left alone.
    func deleteObject(downloadURL: String, under prefix: String) async
    /// Deletes every object whose name starts with `prefix` (a folder, `chats/c1/`).
    func deleteFolder(_ prefix: String) async
}
