import HearthCore
import HearthFunctions

/// A user's own contact list, `contacts/$uid/$contactUid` = `{addedAt, favorite}`
/// (`../shared/CONTRACT.md`, "The chat app"): the user writes it under the shipped rules
/// (registered users only, `addedAt` the server time when first written, `favorite` a boolean),
/// and `matchContacts` with `add: true` adds its matches. Favorites are the entries with
/// `favorite: true`.
enum ContactList {
    /// `contacts/$uid/$contactUid`.
    static func entry(of uid: String, naming contact: String) -> DataPath {
        DataPath("contacts", uid, contact)
    }

    /// A new entry: added now, not a favorite.
    static let newEntry: JSONValue = ["addedAt": .serverTimestamp, "favorite": false]

    /// Whether `a` and `b` are strangers: neither has the other in their contacts.
    static func areStrangers(_ a: String, _ b: String, in snapshot: CallableSnapshot) -> Bool {
        !snapshot.exists(entry(of: a, naming: b)) && !snapshot.exists(entry(of: b, naming: a))
    }
}
