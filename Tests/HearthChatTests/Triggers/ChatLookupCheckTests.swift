import HearthCore
import Testing

@testable import HearthChat
@testable import HearthStore

/// `ChatConsistencyCheck.lookupDisagreements`: the lookup indexes agree with the profiles and
/// memberships after writes, and an entry missing or made up is reported.
@Suite(.timeLimit(.minutes(3))) struct ChatLookupCheckTests {
    @Test func keptIndexesAgreeAndCorruptedOnesAreReported() async throws {
        let chat = try ChatStore()
        defer { chat.destroy() }
        try await chat.seedChats()
        try await chat.set(
            "/users/alice",
            #"{"displayName":"Alice Liddell","phoneNumber":"+14155550100","createdAt":1}"#
        )
        try await chat.set("/users/bob", #"{"displayName":"Bob","phoneNumber":"+14155550101","createdAt":1}"#)
        try await chat.set("/users/bob/phoneNumber", #""+14155550102""#)
        #expect(try await ChatConsistencyCheck.lookupDisagreements(in: chat.ns) == [])
        // Made up: a number nobody has. Missing: Alice's word "liddell".
        let ns = chat.ns
        let phones = try RegisteredLookup(PhoneNumberLookup())
        let words = try RegisteredLookup(NameWordsLookup())
        let batch = WriteBatch()
        batch.put(
            ns.keys.lookupEntryKey(
                phones.nameBytes,
                term: Array("+19999999999".utf8),
                location: DataPath("users", "ghost", "phoneNumber")
            ),
            []
        )
        batch.delete(
            ns.keys.lookupEntryKey(
                words.nameBytes,
                term: Array("liddell".utf8),
                location: DataPath("users", "alice", "displayName")
            )
        )
        try ns.db.write(batch, sync: false)
        #expect(
            try await ChatConsistencyCheck.lookupDisagreements(in: chat.ns) == [
                "chat.phoneNumbers: '+19999999999' finds /users/ghost/phoneNumber, which the data does not say.",
                "chat.nameWords: 'liddell' should find /users/alice/displayName but does not.",
            ]
        )
    }
}
