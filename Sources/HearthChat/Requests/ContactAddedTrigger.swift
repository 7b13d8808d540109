import HearthCore
import HearthDatabase

/// Watches `/contacts/$uid/$contactUid`: a user who has (or adds) someone as a contact accepts
/// that person's conversation request, so a write that leaves the entry in place also removes
/// `userChats/$uid/<their private chat>/request` (`ConversationRequest`) in the same commit,
/// whichever way it came: REST, WebSocket, or `matchContacts` with `add: true`. The private
/// chat of the pair is the one id `createChat` derives for them (`CreateChat.chatID`); a
/// write with no flag to clear reads one leaf and adds nothing.
struct ContactAddedTrigger: TreeTrigger {
    var pattern: String { "/contacts/$uid/$contactUid" }

    func updates(for change: TreeChange) throws -> [DerivedUpdate] {
        guard change.after != nil, let uid = change.wildcards["uid"], let contact = change.wildcards["contactUid"],
            uid != contact
        else { return [] }
        let chat = ChildKey(CreateChat.chatID(uid, contact))
        return ConversationRequest.clearing(ConversationRequest.flag(of: ChildKey(uid), in: chat), in: change.snapshot)
    }
}
